/**
 * The one process writing history. The store keeps its rows' index in memory, so a second
 * writer (an import while the server runs) would overwrite its rows; history_owner names
 * the writer, and a live process of this host named there keeps others out.
 */
import { hostname } from 'node:os';
import type { Db } from '../db.js';

/** Becomes the writer of history, or throws saying which process already is. */
export async function claimHistory(db: Db): Promise<void> {
  const owner = await db.get<{ pid: number; host: string; since: number }>(
    'SELECT pid, host, since FROM history_owner WHERE id = 1',
  );
  if (owner && owner.pid !== process.pid && owner.host === hostname() && isAlive(owner.pid)) {
    throw new Error(
      `history is being written by process ${owner.pid} (a running heliograph server?) since ${new Date(owner.since).toISOString()}; stop it first`,
    );
  }
  await db.run(
    'INSERT OR REPLACE INTO history_owner (id, pid, host, since) VALUES (1, ?, ?, ?)',
    process.pid,
    hostname(),
    Date.now(),
  );
}

/** Gives the claim up, if this process still holds it. */
export async function releaseHistory(db: Db): Promise<void> {
  await db.run('DELETE FROM history_owner WHERE id = 1 AND pid = ?', process.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
