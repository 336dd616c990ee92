/**
 * `heliograph history export|import|check|repair`: history as CSV for backup and migration,
 * and the health of the database file. All work on the data dir's database directly; each
 * subcommand lives in cli/history/.
 */
import { existsSync } from 'node:fs';
import { errorMessage } from '../log.js';
import { lockDataDir, STOPPED_HINT } from '../system/data-dir-lock.js';
import { UsageError, USAGE, type HistoryCommandOptions } from './history/common.js';
import { exportCsv } from './history/export.js';
import { importCsv } from './history/import.js';
import { checkHistory, repairHistory } from './history/check.js';

export type { HistoryCommandOptions };

/**
 * Runs a command that writes the database with the data directory's lock held: refused while
 * a server (or another such command) runs on it. A directory that does not exist has no server.
 */
async function whileStopped(options: HistoryCommandOptions, sub: string, run: () => Promise<number>): Promise<number> {
  if (!existsSync(options.dataDir)) return run();
  const lock = lockDataDir(options.dataDir, { command: `heliograph history ${sub}`, hint: STOPPED_HINT });
  try {
    return await run();
  } finally {
    lock.release();
  }
}

/** Runs `history export|import|check|repair ...`; resolves to the exit code. */
export async function runHistoryCommand(args: string[], options: HistoryCommandOptions): Promise<number> {
  const stderr = options.stderr ?? process.stderr;
  const [sub, ...rest] = args;
  try {
    if (sub === 'export') return await exportCsv(rest, options);
    if (sub === 'import') return await whileStopped(options, 'import', () => importCsv(rest, options));
    if (sub === 'check') return await checkHistory(rest, options);
    if (sub === 'repair') return await whileStopped(options, 'repair', () => repairHistory(rest, options));
    stderr.write(`${sub === undefined ? 'missing' : `unknown`} history command${sub ? ` "${sub}"` : ''}\n${USAGE}\n`);
    return 2;
  } catch (err) {
    stderr.write(`heliograph: ${errorMessage(err)}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
}
