/**
 * What `heliograph restore` checks before anything of the data directory changes: that the file
 * is a whole SQLite file (not cut short), and that its schema is the service's own. A backup is
 * the online copy of heliograph.db, so the only schema objects it can hold are those the applied
 * migration steps create. Triggers, views and indexes beyond those are code over the service's
 * data, not data: they are removed (and named) so none of them runs in the restored service.
 * A table beyond those is data Heliograph never writes: the file was changed after `heliograph
 * backup` wrote it, or another program wrote it; guessing which rows to keep would hide that,
 * so it is refused (a newer release's tables always come with a step that refuseNewer names).
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { openDatabase, type Db, type Migration } from '../db.js';
import { printable } from './file.js';
import { historyMigrations } from '../history/migrations.js';
import { quarantineMigrations } from '../history/damage.js';
import { CORE_MIGRATIONS, refuseNewer, schemaState } from '../schema.js';

const NOTHING = 'nothing was restored';
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const HEADER_BYTES = 100;
/** The tables a backup adds beside the database's own (backup-file.ts). */
const CARRIER_TABLES = new Set(['heliograph_backup_info', 'heliograph_backup_files']);
const ALL_MIGRATIONS: readonly Migration[] = [...CORE_MIGRATIONS, ...historyMigrations, ...quarantineMigrations];

/** A restore refused: the message says why, in words; nothing of the data directory was changed. */
export class RestoreRefused extends Error {}

/**
 * Checks the file's length against its SQLite header (https://sqlite.org/fileformat2.html,
 * "The Database Header": page size at offset 16, size in pages at 28, valid while the number at
 * 92 equals the change counter at 24). A copy cut short (a full card, an interrupted transfer)
 * is named as such instead of as whatever SQLite meets first in the missing pages.
 */
export function checkWholeFile(file: string): void {
  const size = statSync(file).size;
  const header = Buffer.alloc(HEADER_BYTES);
  const fd = openSync(file, 'r');
  let read: number;
  try {
    read = readSync(fd, header, 0, HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  const start = header.subarray(0, Math.min(read, SQLITE_MAGIC.length));
  const cut = `${file}: the backup is cut short (truncated at byte ${size}): ${NOTHING}`;
  if (size === 0) throw new RestoreRefused(cut);
  if (!start.equals(SQLITE_MAGIC.subarray(0, start.length)))
    throw new RestoreRefused(`${file} is not a backup file: ${NOTHING}`);
  if (read < HEADER_BYTES) throw new RestoreRefused(cut);
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const pages = header.readUInt32BE(28);
  const sizeValid = header.readUInt32BE(92) === header.readUInt32BE(24) && pages > 0;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0)
    throw new RestoreRefused(`${file} is damaged (its header names no valid page size): ${NOTHING}`);
  if (sizeValid ? size < pageSize * pages : size % pageSize !== 0) throw new RestoreRefused(cut);
}

/** An error from SQLite while reading the backup, in words. */
export function inWords(err: unknown, file: string): Error {
  if (err instanceof RestoreRefused) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (!/SQLITE_/.test(message)) return err instanceof Error ? err : new Error(message);
  if (/SQLITE_NOTADB|not a database/i.test(message))
    return new RestoreRefused(`${file} is not a backup file: ${NOTHING}`);
  const detail = message.replace(/^SQLITE_[A-Z_]+:\s*/, '');
  if (/SQLITE_CORRUPT|malformed/i.test(message))
    return new RestoreRefused(`${file} is damaged (${detail}): ${NOTHING}`);
  return new RestoreRefused(`${file} cannot be read as a Heliograph backup (${detail}): ${NOTHING}`);
}

interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

interface Column {
  name: string;
  type: string;
  notnull: number;
  pk: number;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const columnsText = (cols: Column[]) =>
  cols.map((c) => `${c.name} ${c.type}${c.notnull ? ' NOT NULL' : ''}${c.pk ? ' PRIMARY KEY' : ''}`).join(', ');

async function columns(db: Db, table: string): Promise<Column[]> {
  return db.all<Column[]>('SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid', table);
}

/** SQLite's own tables (AUTOINCREMENT's counters, ANALYZE's statistics) and its automatic indexes. */
const INTERNAL_TABLES = new Set(['sqlite_sequence', 'sqlite_stat1', 'sqlite_stat2', 'sqlite_stat3', 'sqlite_stat4']);
const SCHEMA_QUERY = 'SELECT type, name, tbl_name, sql FROM sqlite_master';
const internal = (o: SchemaObject) =>
  (o.type === 'table' && INTERNAL_TABLES.has(o.name.toLowerCase())) || (o.type === 'index' && o.sql === null);

/** The schema the applied steps make, in a database of its own: the names of its tables' columns and its indexes. */
async function expectedSchema(applied: string[], file: string) {
  const db = await openDatabase(':memory:');
  try {
    const done = new Set(applied);
    for (const m of ALL_MIGRATIONS) {
      if (!done.has(m.id)) continue;
      await db.exec(m.sql).catch(() => {
        throw new RestoreRefused(
          `${file}: the backup's schema steps do not fit together (${m.id} cannot follow the others): ${NOTHING}`,
        );
      });
    }
    const objects = (await db.all<SchemaObject[]>(SCHEMA_QUERY)).filter((o) => !internal(o));
    const tables = new Map<string, Column[]>();
    for (const o of objects) if (o.type === 'table') tables.set(o.name.toLowerCase(), await columns(db, o.name));
    const indexes = new Set(objects.filter((o) => o.type === 'index').map((o) => o.name.toLowerCase()));
    return { tables, indexes };
  } finally {
    await db.close();
  }
}

/**
 * Checks the backup's schema against the one its applied steps make, removes the triggers, views
 * and indexes Heliograph never makes, and returns what it removed (for the owner to read).
 * Throws RestoreRefused for a schema that is not Heliograph's.
 */
export async function cleanSchema(db: Db, file: string): Promise<string[]> {
  // By type and SQL, not by name: a row written into sqlite_master by hand may take any name.
  const objects = (await db.all<SchemaObject[]>(SCHEMA_QUERY)).filter((o) => !internal(o));
  const isTable = (name: string) => objects.some((o) => o.type === 'table' && o.name.toLowerCase() === name);
  if (!isTable('migrations'))
    throw new RestoreRefused(`${file}: the backup has no migrations table: it is not a Heliograph backup; ${NOTHING}`);
  const state = await schemaState(db).catch(() => {
    throw new RestoreRefused(
      `${file}: the backup's migrations table cannot be read: it is not a Heliograph backup; ${NOTHING}`,
    );
  });
  refuseNewer(state, file);
  const expected = await expectedSchema(state.applied, file);

  const unknown = objects.filter(
    (o) =>
      o.type === 'table' && !CARRIER_TABLES.has(o.name.toLowerCase()) && !expected.tables.has(o.name.toLowerCase()),
  );
  if (unknown.length > 0)
    throw new RestoreRefused(
      `${file}: the backup holds table(s) Heliograph never writes (${unknown.map((o) => printable(o.name)).join(', ')}): ` +
        `it was changed after \`heliograph backup\` wrote it, or is not a Heliograph backup; ${NOTHING}. ` +
        'Restore a backup as `heliograph backup` wrote it.',
    );
  for (const [name, want] of expected.tables) {
    if (!isTable(name))
      throw new RestoreRefused(
        `${file}: the backup lacks the table ${name} that its schema steps make: it is damaged or not a Heliograph backup; ${NOTHING}`,
      );
    const have = await columns(db, name);
    if (columnsText(have) !== columnsText(want))
      throw new RestoreRefused(
        `${file}: the backup's table ${name} is not the one Heliograph makes (columns ${columnsText(have)}; ` +
          `expected ${columnsText(want)}); ${NOTHING}`,
      );
  }
  const odd = objects.find((o) => !['table', 'index', 'view', 'trigger'].includes(o.type));
  if (odd)
    throw new RestoreRefused(
      `${file}: the backup's schema holds an unknown kind of object (${printable(odd.type)}); ${NOTHING}`,
    );

  // Triggers first: nothing that follows may run one.
  const strip = [
    ...objects.filter((o) => o.type === 'trigger'),
    ...objects.filter((o) => o.type === 'view'),
    ...objects.filter((o) => o.type === 'index' && !expected.indexes.has(o.name.toLowerCase())),
  ];
  if (strip.length === 0) return [];
  await db.exec('BEGIN');
  try {
    for (const o of strip) await db.exec(`DROP ${o.type.toUpperCase()} ${quote(o.name)}`);
    await db.exec('COMMIT');
  } catch (err) {
    await db.exec('ROLLBACK').catch(() => undefined);
    throw err;
  }
  return strip.map((o) =>
    o.type === 'view' ? `view ${printable(o.name)}` : `${o.type} ${printable(o.name)} (on ${printable(o.tbl_name)})`,
  );
}
