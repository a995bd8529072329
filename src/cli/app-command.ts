import { ConfigError, loadConfig } from '../app/config.js';
import { startApp } from '../app/server.js';
import { logLine } from '../lease/escape.js';
import { EXIT, UsageError, parse, type Output } from './options.js';
import { appSmoke } from './app-smoke.js';
import { APP } from './app-help.js';
import { appSettings, type AppSettings } from './app-settings.js';
import { optionsOf } from './flags/table.js';

/** `lease-gate app --config FILE`: the protection-rule app, until SIGINT or SIGTERM. */
export async function app(args: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  if (args[0] === 'smoke') return appSmoke(args.slice(1), io, env);
  const { values } = parse(args, optionsOf(APP.flags));
  return startAppCommand(appSettings(values), io, env);
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
  const log = (line: string) => io.out(logLine(`${new Date().toISOString()} ${line}`));
  const running = await startApp(config, { log, env });
  const stopped = new Promise<void>((resolve) =>
    process.once('SIGINT', resolve).once('SIGTERM', resolve),
  );
  io.out(`lease-gate app listening on ${running.url}`);
  log(`plane ${config.planeUrl}, GitHub ${config.githubApiUrl}, ${config.rules.length} rule(s)`);
  await stopped;
  log('stopping: leaving every queue');
  await running.close();
  return EXIT.done;
}
