/**
 * `heliograph history export|import|check|repair`: history as CSV for backup and migration,
 * and the health of the database file. All work on the data dir's database directly; each
 * subcommand lives in cli/history/.
 */
import { errorMessage } from '../log.js';
import { UsageError, USAGE, type HistoryCommandOptions } from './history/common.js';
import { exportCsv } from './history/export.js';
import { importCsv } from './history/import.js';
import { checkHistory, repairHistory } from './history/check.js';

export type { HistoryCommandOptions };

/** Runs `history export|import|check|repair ...`; resolves to the exit code. */
export async function runHistoryCommand(args: string[], options: HistoryCommandOptions): Promise<number> {
  const stderr = options.stderr ?? process.stderr;
  const [sub, ...rest] = args;
  try {
    if (sub === 'export') return await exportCsv(rest, options);
    if (sub === 'import') return await importCsv(rest, options);
    if (sub === 'check') return await checkHistory(rest, options);
    if (sub === 'repair') return await repairHistory(rest, options);
    stderr.write(`${sub === undefined ? 'missing' : `unknown`} history command${sub ? ` "${sub}"` : ''}\n${USAGE}\n`);
    return 2;
  } catch (err) {
    stderr.write(`heliograph: ${errorMessage(err)}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
}
