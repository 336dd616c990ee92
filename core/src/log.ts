/**
 * A small structured logger: one line per event on stderr, `time level [name] message {fields}`.
 * The level comes from HELIOGRAPH_LOG_LEVEL (debug, info, warn, error, silent); default info.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

let threshold = ORDER[(process.env.HELIOGRAPH_LOG_LEVEL as LogLevel) ?? 'info'] ?? ORDER.info;

export function setLogLevel(level: LogLevel): void {
  threshold = ORDER[level];
}

export function isLogEnabled(level: LogLevel): boolean {
  return ORDER[level] >= threshold;
}

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function createLogger(name: string): Logger {
  const write = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < threshold) return;
    const extra = fields && Object.keys(fields).length ? ' ' + JSON.stringify(fields, errorReplacer) : '';
    process.stderr.write(`${new Date().toISOString()} ${level} [${name}] ${message}${extra}\n`);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}

/** The message of anything thrown. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
