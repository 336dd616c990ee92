/**
 * Staging a restore in the running service, shared by the upload (POST /api/v1/backups/restore)
 * and a listed backup (POST /api/v1/backups/{name}/restore): one restore is checked at a time,
 * none once a staged one's restart is asked for, and a file that passes the checks of
 * `heliograph restore` becomes `restore-pending.backup`, which the next start puts in place
 * (applyPendingRestore in restore.ts).
 */
import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { RestoreRefused } from './checks.js';
import type { RestartRequest } from './restart.js';
import { checkBackup, PENDING_RESTORE, type CheckedBackup } from './restore.js';

export class RestoreStaging {
  private checking = false;

  constructor(private readonly options: { dataDir: string; restart: RestartRequest }) {}

  /** A file in the data directory for this process's own use while it stages (an upload). */
  scratch(name: string): string {
    return join(this.options.dataDir, `${name}-${process.pid}.partial`);
  }

  /**
   * Runs `job` as the one restore under way. Returns `undefined` without running it while
   * another is being checked, or once one is staged and its restart asked for.
   */
  async exclusive<T>(job: () => Promise<T>): Promise<T | undefined> {
    if (this.checking || this.options.restart.pending()) return undefined;
    this.checking = true;
    try {
      return await job();
    } finally {
      this.checking = false;
    }
  }

  /**
   * Checks `source` on a copy and stages the copy; `source` itself is left as it is. A refusal
   * throws RestoreRefused in words, naming the file as `called` (not by its path), and stages
   * nothing.
   */
  async stage(source: string, called: string): Promise<CheckedBackup> {
    const staging = join(this.options.dataDir, `${PENDING_RESTORE}.checking`);
    try {
      let checked: CheckedBackup;
      try {
        checked = await checkBackup(source, staging);
      } catch (err) {
        if (!(err instanceof RestoreRefused)) throw err;
        throw new RestoreRefused(err.message.split(source).join(called));
      }
      renameSync(staging, join(this.options.dataDir, PENDING_RESTORE));
      return checked;
    } finally {
      rmSync(staging, { force: true });
    }
  }

  /** Asks for the restart that puts the staged restore in place. */
  restart(reason: string): void {
    this.options.restart.request(reason);
  }
}
