import { untrusted } from '../lease/escape.js';
import { LOG_FORMAT_FORM, parseLogFormat, type LogFormat } from '../log/logger.js';
import { UsageError } from './options.js';

/** The flag over the environment; either one naming neither form is refused, naming itself. */
export function logFormatOf(flag: string | undefined, env: NodeJS.ProcessEnv): LogFormat {
  const [raw, from] =
    flag !== undefined
      ? [flag, '--log-format']
      : [env.LEASE_GATE_LOG_FORMAT, 'LEASE_GATE_LOG_FORMAT'];
  const format = parseLogFormat(raw);
  if (!format)
    throw new UsageError(
      `Invalid ${from} '${untrusted(raw ?? '', 40)}'. Expected ${LOG_FORMAT_FORM}.`,
    );
  return format;
}
