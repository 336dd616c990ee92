/** What the history commands share: their options, flags, usage errors and the store they open. */
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { systemClock, type Clock } from '../../clock.js';
import type { Config } from '../../config/schema.js';
import { openDatabase } from '../../db.js';
import { errorMessage } from '../../log.js';
import { HistoryStore } from '../../history/store.js';

export interface HistoryCommandOptions {
  dataDir: string;
  config: Config;
  /** For tests: where output and progress go, and the time. */
  stdout?: Writable;
  stderr?: Writable;
  clock?: Clock;
}

export const USAGE = `usage:
  heliograph history export --topic T [--from TIME] [--to TIME] [--group-by 10s] [--agg mean|max|min|sum|last] > file.csv
  heliograph history import FILE.csv [--topic T]
  heliograph history check
  heliograph history repair
Stop the server before importing or repairing: only one process may write history.`;

/** A mistake in how the command was called (exit code 2). */
export class UsageError extends Error {}

export function databaseFile(options: HistoryCommandOptions): string {
  return join(options.dataDir, 'heliograph.db');
}

export function parse(rest: string[], allowPositionals: boolean) {
  try {
    return parseArgs({
      args: rest,
      allowPositionals,
      options: {
        topic: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        'group-by': { type: 'string' },
        agg: { type: 'string' },
        // Read by the caller to find the data dir; accepted here so they may come anywhere.
        data: { type: 'string' },
        config: { type: 'string' },
      },
    });
  } catch (err) {
    throw new UsageError(`${errorMessage(err)}\n${USAGE}`);
  }
}

export async function openStore(options: HistoryCommandOptions, readOnly: boolean) {
  const db = await openDatabase(databaseFile(options));
  try {
    const store = await HistoryStore.open({
      db,
      clock: options.clock ?? systemClock,
      config: options.config.history,
      autoFlush: false,
      readOnly,
    });
    return { db, store };
  } catch (err) {
    await db.close();
    throw err;
  }
}
