/**
 * The backup file: a SQLite database, the online copy of heliograph.db, with two tables added
 * that carry the rest of the data directory: `heliograph_backup_info` (format, version, time)
 * and `heliograph_backup_files` (site-id, config.json, plugins.json and plugins' own files,
 * by their path in the data directory). One file, checked as a whole by SQLite's integrity check.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Db } from '../db.js';
import { DATA_FILES, DATABASE_FILE } from '../system/data-dir.js';

export const BACKUP_FORMAT = '1';

/** Deletes the claim on history (history/owner.ts) that a copy of the database carries, if it has the table. */
export async function dropHistoryClaim(db: Db): Promise<void> {
  const owner = await db.get<{ 1: number }>(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_owner'",
  );
  if (owner) await db.exec('DELETE FROM history_owner');
}

export interface CarriedFile {
  /** Path in the data directory, `/`-separated. */
  name: string;
  content: Buffer;
}

/** The files a backup carries besides the database: the plugin setup, config, site id, plugins' data. */
export function carriedFiles(dataDir: string, pluginsFile: string): CarriedFile[] {
  const files: CarriedFile[] = [];
  for (const name of DATA_FILES) {
    const path = name === 'plugins.json' ? pluginsFile : join(dataDir, name);
    try {
      files.push({ name, content: readFileSync(path) });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  const pluginsDir = join(dataDir, 'plugins');
  let entries: string[] = [];
  try {
    entries = readdirSync(pluginsDir, { recursive: true }).map(String);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  for (const entry of entries.sort()) {
    const path = join(pluginsDir, entry);
    if (!statSync(path).isFile()) continue;
    const name = relative(dataDir, path).split(sep).join('/');
    // Restore refuses such a name (refusedName), so a backup carrying one could never be restored.
    if (CONTROL.test(name))
      throw new Error(
        `the data directory holds a plugin file whose name has control characters (${printable(name)}): ` +
          'a backup cannot carry it, so none was written; rename or remove that file and back up again',
      );
    files.push({ name, content: readFileSync(path) });
  }
  return files;
}

/** Adds the info and the carried files to the backup's database. */
export async function writeCarried(db: Db, info: Record<string, string>, files: CarriedFile[]): Promise<void> {
  await db.exec(`
    CREATE TABLE heliograph_backup_info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE heliograph_backup_files (name TEXT PRIMARY KEY, content BLOB NOT NULL);`);
  await db.exec('BEGIN');
  for (const [key, value] of Object.entries(info))
    await db.run('INSERT INTO heliograph_backup_info (key, value) VALUES (?, ?)', key, value);
  for (const file of files)
    await db.run('INSERT INTO heliograph_backup_files (name, content) VALUES (?, ?)', file.name, file.content);
  await db.exec('COMMIT');
}

/** A carried file's name is a relative path inside the data directory, or it is refused. */
export function safeName(name: string): boolean {
  const parts = name.split('/');
  return parts.length > 0 && parts.every((p) => p !== '' && p !== '.' && p !== '..' && !p.includes('\\'));
}

/** C0 and C1 controls, DEL, line separators and bidirectional overrides: what rewrites a terminal or a name's look. */
const CONTROL = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
const CONTROLS = new RegExp(CONTROL.source, 'gu');

/** A name as it may be shown in a message: quoted, control characters as `\uXXXX`. */
export function printable(name: string): string {
  return JSON.stringify(name).replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Why a carried file is refused, or undefined: a backup carries the data directory's own files
 * (DATA_FILES) and plugins' files under plugins/, nothing else; above all nothing that would
 * land on the database or its journals and replace the database restore has just checked.
 */
export function refusedName(name: string): string | undefined {
  if (CONTROL.test(name)) {
    return `a file name in the backup has control characters (${printable(name)}): refused`;
  }
  if (!safeName(name)) return `the backup carries a file named ${printable(name)}, outside the data directory: refused`;
  if (name.toLowerCase().startsWith(DATABASE_FILE))
    return `the backup carries a second database file ${printable(name)}, which would replace the database it restores: refused`;
  if (!(DATA_FILES as readonly string[]).includes(name) && !name.startsWith('plugins/'))
    return `the backup carries a file named ${printable(name)}, which \`heliograph backup\` never writes: refused`;
  return undefined;
}

/** Reads what a backup carries; throws saying why the file is not a usable backup. */
export async function readCarried(
  db: Db,
  file: string,
): Promise<{ info: Record<string, string>; files: CarriedFile[] }> {
  const check = await db.all<Array<{ integrity_check: string }>>('PRAGMA integrity_check');
  if (check.length !== 1 || check[0]!.integrity_check !== 'ok')
    throw new Error(
      `${file} is damaged: ${check
        .map((r) => r.integrity_check)
        .slice(0, 3)
        .join('; ')}`,
    );
  const tables = await db.all<Array<{ name: string }>>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('heliograph_backup_info', 'heliograph_backup_files')",
  );
  if (tables.length !== 2) throw new Error(`${file} is a database, but not one written by \`heliograph backup\``);
  const rows = await db.all<Array<{ key: unknown; value: unknown }>>('SELECT key, value FROM heliograph_backup_info');
  const info = Object.fromEntries(rows.map((r) => [String(r.key), String(r.value)]));
  if (info.format !== BACKUP_FORMAT)
    throw new Error(`${file} is a backup of format ${info.format ?? '?'}; this version reads format ${BACKUP_FORMAT}`);
  const rawFiles = await db.all<Array<{ name: unknown; content: unknown }>>(
    'SELECT name, content FROM heliograph_backup_files ORDER BY name',
  );
  const files: CarriedFile[] = [];
  const seen = new Set<string>();
  for (const { name, content } of rawFiles) {
    if (typeof name !== 'string') throw new Error(`${file}: a file in the backup has no name: refused`);
    const refused = refusedName(name);
    if (refused) throw new Error(`${file}: ${refused}`);
    if (seen.has(name)) throw new Error(`${file}: the backup carries ${printable(name)} twice: refused`);
    seen.add(name);
    if (!Buffer.isBuffer(content))
      throw new Error(
        `${file}: the file ${printable(name)} in the backup has no content (not stored as bytes): refused`,
      );
    files.push({ name, content });
  }
  // A name that is also another's folder (plugins/a and plugins/a/b) cannot both be written.
  const folder = files.find((f) => files.some((g) => g.name.startsWith(`${f.name}/`)));
  if (folder)
    throw new Error(`${file}: the backup carries ${printable(folder.name)} both as a file and as a folder: refused`);
  return { info, files };
}
