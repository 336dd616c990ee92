import type { TestContext } from 'node:test';
import { setLogLevel, type LogLevel } from '../../src/log.js';

/**
 * The log lines written from now on at level `level` and above, kept instead of printed; the
 * level and stderr are put back when the test ends.
 */
export function captureLog(t: TestContext, level: LogLevel = 'warn'): string[] {
  const lines: string[] = [];
  setLogLevel(level);
  t.mock.method(process.stderr, 'write', (chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  t.after(() => setLogLevel((process.env.HELIOGRAPH_LOG_LEVEL as LogLevel | undefined) ?? 'info'));
  return lines;
}
