import { describe, expect, it } from 'vitest';
import { APP, APP_SMOKE } from '../src/cli/app-help.js';
import { appSettings, smokeSettings } from '../src/cli/app-settings.js';
import { optionsOf } from '../src/cli/flags/table.js';
import { parse } from '../src/cli/options.js';

/**
 * appSettings and smokeSettings: `lease-gate app` and `app smoke`'s flags, parsed by their
 * own tables, to settings or the UsageError naming the flag (issue #56, item 6). Pure: the
 * files named here do not exist, and are not read.
 */

const app = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  appSettings(parse(args, optionsOf(APP.flags)).values, env);
const smoke = (args: string[]) => smokeSettings(parse(args, optionsOf(APP_SMOKE.flags)).values);

describe('appSettings', () => {
  it('takes --config FILE, unread', () => {
    expect(app(['--config', '/nowhere/app.json'])).toEqual({
      configFile: '/nowhere/app.json',
      logFormat: 'text',
    });
  });

  it('takes --log-format text|json, else LEASE_GATE_LOG_FORMAT, and refuses another form', () => {
    const config = ['--config', '/nowhere/app.json'];
    expect(app([...config, '--log-format', 'json']).logFormat).toBe('json');
    expect(app(config, { LEASE_GATE_LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(() => app([...config, '--log-format', 'yaml'])).toThrow(
      "Invalid --log-format 'yaml'. Expected 'text' (lines for people, the default) or 'json'",
    );
  });

  it('refuses no --config, or an empty one', () => {
    expect(() => app([])).toThrow('Missing --config FILE: the JSON config of the app.');
    expect(() => app(['--config', ''])).toThrow('Missing --config FILE');
  });
});

describe('smokeSettings', () => {
  const secret = ['--secret-file', '/nowhere/secret'];

  it('takes an https:// URL, or http:// to loopback, and the secret file unread', () => {
    expect(smoke(['--url', 'https://gate.example.com/webhook', ...secret])).toEqual({
      url: 'https://gate.example.com/webhook',
      secretFile: '/nowhere/secret',
    });
    expect(smoke(['--url', 'http://127.0.0.1:8790', ...secret]).url).toBe('http://127.0.0.1:8790/');
  });

  it('refuses no --url, a plain http:// one beyond loopback, credentials or no URL at all', () => {
    const form =
      'the webhook URL GitHub is given, https:// (plain http:// only to loopback), such as https://gate.example.com/webhook';
    expect(() => smoke(secret)).toThrow(`app smoke needs --url URL: ${form}.`);
    expect(() => smoke(['--url', 'http://gate.example.com/', ...secret])).toThrow(
      `Invalid --url 'http://gate.example.com/'. Expected ${form}.`,
    );
    expect(() => smoke(['--url', 'https://u:p@gate.example.com/', ...secret])).toThrow(
      'Invalid --url',
    );
    expect(() => smoke(['--url', 'not a url', ...secret])).toThrow("Invalid --url 'not a url'.");
  });

  it('refuses no --secret-file, after the URL', () => {
    expect(() => smoke(['--url', 'https://gate.example.com/'])).toThrow(
      "app smoke needs --secret-file FILE: the app's webhookSecretFile.",
    );
    expect(() => smoke([])).toThrow('app smoke needs --url URL');
  });
});
