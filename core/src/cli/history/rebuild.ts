/**
 * Rebuilding a database file SQLite finds malformed: every table is created afresh in a new
 * file and filled with the rows that can still be read, in chunks of rowids, row by row
 * where a chunk fails. Returns a report of what was copied and what could not be.
 */
import { openDatabase } from '../../db.js';
import { errorMessage } from '../../log.js';

const CHUNK = 1000;

export async function rebuildDatabase(damaged: string, target: string): Promise<string> {
  const db = await openDatabase(target);
  const lines: string[] = [];
  try {
    await db.run('ATTACH DATABASE ? AS old', damaged);
    const tables = await db.all<Array<{ name: string; sql: string }>>(
      "SELECT name, sql FROM old.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    );
    for (const { name, sql } of tables) {
      const q = `"${name.replace(/"/g, '""')}"`;
      if (name !== 'migrations') await db.exec(sql);
      let copied = 0;
      let lost = 0;
      try {
        const range = await db.get<{ lo: number | null; hi: number | null }>(
          `SELECT min(rowid) AS lo, max(rowid) AS hi FROM old.${q}`,
        );
        for (let lo = range?.lo ?? 0; range?.hi != null && lo <= range.hi; lo += CHUNK) {
          try {
            copied +=
              (
                await db.run(
                  `INSERT OR IGNORE INTO main.${q} SELECT * FROM old.${q} WHERE rowid BETWEEN ? AND ?`,
                  lo,
                  lo + CHUNK - 1,
                )
              ).changes ?? 0;
          } catch {
            for (let id = lo; id < lo + CHUNK; id++) {
              try {
                copied +=
                  (await db.run(`INSERT OR IGNORE INTO main.${q} SELECT * FROM old.${q} WHERE rowid = ?`, id))
                    .changes ?? 0;
              } catch {
                lost++;
              }
            }
          }
        }
      } catch (err) {
        lines.push(`${name}: could not be read at all (${errorMessage(err)})`);
        continue;
      }
      lines.push(`${name}: ${copied} row(s) copied${lost > 0 ? `, ${lost} unreadable` : ''}`);
    }
    const indexes = await db.all<Array<{ sql: string }>>(
      "SELECT sql FROM old.sqlite_master WHERE type = 'index' AND sql IS NOT NULL",
    );
    for (const { sql } of indexes)
      await db.exec(sql).catch((err) => lines.push(`an index could not be made again (${errorMessage(err)})`));
    await db.run('DETACH DATABASE old');
  } finally {
    await db.close();
  }
  return `rebuilt the database from what could be read:\n${lines.map((l) => `  ${l}`).join('\n')}`;
}
