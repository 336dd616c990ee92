/**
 * The database's schema version: the set of migration ids applied to it. Every migration the
 * core knows is listed here, so a database written by a newer release (one with steps this
 * one does not know) is recognised at the start and refused with what to do, before anything
 * touches it; and before an older database is upgraded, a copy of it is taken.
 */
import { authMigrations } from './auth/migrations.js';
import { onlineBackup, type Db, type Migration } from './db.js';
import { energyMigrations } from './energy/kwh-totals.js';
import { settingsLogMigrations } from './config/settings-log.js';
import { priceMigrations } from './grid/price-history.js';
import { quarantineMigrations } from './history/damage.js';
import { historyMigrations } from './history/migrations.js';
import { createLogger } from './log.js';
import { pluginStoreMigrations } from './plugins/context/plugin-store.js';
import { auditMigrations } from './writes/audit.js';

const log = createLogger('database');

/** The steps of the core's own tables, applied at the start (history applies its own). */
export const CORE_MIGRATIONS: readonly Migration[] = [
  ...auditMigrations,
  ...energyMigrations,
  ...pluginStoreMigrations,
  ...authMigrations,
  ...priceMigrations,
  ...settingsLogMigrations,
];

/** Every schema step of this release. */
export const KNOWN_MIGRATIONS: readonly string[] = [
  ...CORE_MIGRATIONS,
  ...historyMigrations,
  ...quarantineMigrations,
].map((m) => m.id);

/** The database was written by a newer release: the start stops, nothing is changed. */
export class NewerSchemaError extends Error {}

export interface SchemaState {
  applied: string[];
  /** Steps of this release not yet applied. */
  pending: string[];
  /** Steps applied that this release does not know: a newer release wrote the file. */
  unknown: string[];
}

export async function schemaState(db: Db): Promise<SchemaState> {
  const applied = (await db.all<Array<{ id: string }>>('SELECT id FROM migrations ORDER BY applied_at, id')).map(
    (row) => row.id,
  );
  const known = new Set(KNOWN_MIGRATIONS);
  return {
    applied,
    pending: KNOWN_MIGRATIONS.filter((id) => !applied.includes(id)),
    unknown: applied.filter((id) => !known.has(id)),
  };
}

/** Throws NewerSchemaError naming the unknown steps, for `file` (what the message names). */
export function refuseNewer(state: SchemaState, file: string): void {
  if (state.unknown.length === 0) return;
  throw new NewerSchemaError(
    `${file} was written by a newer Heliograph: its schema has steps this version does not know (${state.unknown.join(', ')}). ` +
      'Nothing was changed. Install the newer version again, or restore a backup made with this one (`heliograph restore FILE`).',
  );
}

/** `heliograph.db.before-upgrade-2026-11-25T18-30-00Z` */
export function upgradeBackupName(file: string, now: number): string {
  return `${file}.before-upgrade-${new Date(now)
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-')}`;
}

/**
 * Checks the schema at the start: refuses a newer one; before upgrading an existing older one
 * takes an online backup beside it. Returns the backup's name, if one was taken.
 */
export async function prepareSchema(db: Db, file: string, now: number): Promise<string | undefined> {
  const state = await schemaState(db);
  refuseNewer(state, file);
  if (state.applied.length === 0 || state.pending.length === 0) return undefined;
  const target = upgradeBackupName(file, now);
  await onlineBackup(db, target);
  log.info(`upgrading the database schema (${state.pending.join(', ')}); the file as it was is kept as ${target}`);
  return target;
}
