/**
 * The backup file: a SQLite database, the online copy of heliograph.db, with two tables added
 * that carry the rest of the data directory: `heliograph_backup_info` (format, version, time)
 * and `heliograph_backup_files` (site-id, config.json, plugins.json and plugins' own files,
 * by their path in the data directory). One file, checked as a whole by SQLite's integrity check.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Db } from '../db.js';
import { DATA_FILES } from '../system/data-dir.js';

export const BACKUP_FORMAT = '1';

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
    files.push({ name: relative(dataDir, path).split(sep).join('/'), content: readFileSync(path) });
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
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'heliograph_backup_%'",
  );
  if (tables.length !== 2) throw new Error(`${file} is a database, but not one written by \`heliograph backup\``);
  const rows = await db.all<Array<{ key: string; value: string }>>('SELECT key, value FROM heliograph_backup_info');
  const info = Object.fromEntries(rows.map((r) => [r.key, r.value]));
  if (info.format !== BACKUP_FORMAT)
    throw new Error(`${file} is a backup of format ${info.format ?? '?'}; this version reads format ${BACKUP_FORMAT}`);
  const files = await db.all<CarriedFile[]>('SELECT name, content FROM heliograph_backup_files ORDER BY name');
  const bad = files.find((f) => !safeName(f.name));
  if (bad) throw new Error(`${file} carries a file named ${JSON.stringify(bad.name)}, outside the data directory`);
  return { info, files };
}
