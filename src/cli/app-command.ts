import { ConfigError, loadConfig } from '../app/config.js';
import { startApp } from '../app/server.js';
import { EXIT, UsageError, parse, type Output } from './options.js';
import { appMetricsKeyOf } from './app-metrics-key.js';
import { appSmoke } from './app-smoke.js';
import { APP } from './app-help.js';
import { appSettings, type AppSettings } from './app-settings.js';
import { optionsOf } from './flags/table.js';
import { loggedOutput, refusedToStart } from './log-output.js';

/** `lease-gate app --config FILE`: the protection-rule app, until SIGINT or SIGTERM. */
export async function app(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  if (args[0] === 'smoke') return appSmoke(args.slice(1), io, env);
  const { values } = parse(args, optionsOf(APP.flags));
  const settings = appSettings(values, env);
  try {
    return await startAppCommand(settings, io, env);
  } catch (error) {
    // A config that does not check out, said as a JSON line when asked for.
    const log = { format: settings.logFormat, secrets: [] };
    return refusedToStart(error, log, loggedOutput(io, log), 'app');
  }
}

/** Checked settings → the app: its config read and checked, then served. */
async function startAppCommand(
  settings: AppSettings,
  io: Output,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  let config;
  try {
    config = loadConfig(settings.configFile, env);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  appMetricsKeyOf(env, config.host, config.planeKey);
  // Masked and escaped (src/log); the text form starts with its time, a JSON line has a field.
  const logged = loggedOutput(io, {
    format: settings.logFormat,
    secrets: [config.privateKey, config.webhookSecret, config.planeKey, env.LEASE_GATE_METRICS_KEY],
  });
  const log =
    settings.logFormat === 'json'
      ? (line: string) => logged.out(line)
      : (line: string) => logged.out(`${new Date().toISOString()} ${line}`);
  const running = await startApp(config, { log, env });
  const stopped = new Promise<void>((resolve) =>
    process.once('SIGINT', resolve).once('SIGTERM', resolve),
  );
  logged.outWith(`lease-gate app listening on ${running.url}`, { url: running.url });
  log(`plane ${config.planeUrl}, GitHub ${config.githubApiUrl}, ${config.rules.length} rule(s)`);
  await stopped;
  log('stopping: leaving every queue');
  await running.close();
  return EXIT.done;
}
