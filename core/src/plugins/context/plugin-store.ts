import type { PluginStore } from '@heliograph/plugins-sdk';
import type { Db, Migration } from '../../db.js';
import type { DbWriter } from '../../db-writer.js';
import { DEFAULT_QUOTAS, type PluginQuotas } from '../instances/quotas.js';

export const pluginStoreMigrations: Migration[] = [
  {
    id: 'plugin-store:1',
    sql: 'CREATE TABLE plugin_store (instance TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (instance, key))',
  },
];

/** A `ctx.store.set` past the instance's quota; nothing was written. */
export class StoreQuotaError extends Error {
  override name = 'StoreQuotaError';
  readonly code = 'STORE_QUOTA_EXCEEDED';
}

export interface PluginStoreOptions {
  quotas?: Pick<PluginQuotas, 'storeMaxBytes' | 'storeMaxValueBytes'>;
  /** A write was refused for the quota (logged and audited by the caller). */
  refused?(error: StoreQuotaError): void;
}

/**
 * `ctx.store`: one instance's keys in the shared plugin_store table, values as JSON. Writes
 * take their turn on the server's one write path when it is given (db-writer.ts), one of the
 * instance's at a time: a flood of writes waits in the instance's own line, so the shared
 * line holds at most one of them ahead of an API write. Bounded by the instance's quota (the
 * bytes of its keys and values) and by the size of one value.
 */
export function pluginStore(
  db: Db,
  instance: string,
  writer?: DbWriter,
  options: PluginStoreOptions = {},
): PluginStore {
  const quotas = options.quotas ?? DEFAULT_QUOTAS;
  let line: Promise<unknown> = Promise.resolve();
  const write = <T>(job: () => Promise<T>): Promise<T> => {
    const run = line.then(() => (writer ? writer.run(`the store of ${instance}`, job) : job()));
    line = run.catch(() => undefined);
    return run;
  };
  /** Bytes the instance holds, read once, then kept up to date by its own writes. */
  let used: number | undefined;
  const usage = async () =>
    (used ??=
      (
        await db.get<{ bytes: number | null }>(
          'SELECT SUM(length(CAST(key AS BLOB)) + length(CAST(value AS BLOB))) AS bytes FROM plugin_store WHERE instance = ?',
          instance,
        )
      )?.bytes ?? 0);
  const sizeOf = async (key: string) =>
    (
      await db.get<{ bytes: number }>(
        'SELECT length(CAST(key AS BLOB)) + length(CAST(value AS BLOB)) AS bytes FROM plugin_store WHERE instance = ? AND key = ?',
        instance,
        key,
      )
    )?.bytes ?? 0;
  const refuse = (message: string): never => {
    const error = new StoreQuotaError(message);
    options.refused?.(error);
    throw error;
  };
  return {
    async get<T>(key: string): Promise<T | undefined> {
      const row = await db.get<{ value: string }>(
        'SELECT value FROM plugin_store WHERE instance = ? AND key = ?',
        instance,
        key,
      );
      return row ? (JSON.parse(row.value) as T) : undefined;
    },
    async set(key, value) {
      const json = JSON.stringify(value);
      const valueBytes = Buffer.byteLength(json ?? '');
      if (valueBytes > quotas.storeMaxValueBytes)
        refuse(
          `STORE_QUOTA_EXCEEDED: the value of "${key.slice(0, 100)}" is ${valueBytes} bytes, more than one value may hold (${quotas.storeMaxValueBytes}); store it in parts, or raise "quotas": { "storeMaxValueBytes": ... } in plugins.json`,
        );
      const bytes = Buffer.byteLength(key) + valueBytes;
      await write(async () => {
        const total = (await usage()) - (await sizeOf(key)) + bytes;
        if (total > quotas.storeMaxBytes)
          refuse(
            `STORE_QUOTA_EXCEEDED: the store of ${instance} would hold ${total} bytes, more than its quota of ${quotas.storeMaxBytes}; delete keys it no longer needs, or raise "quotas": { "storeMaxBytes": ... } in plugins.json`,
          );
        await db.run(
          'INSERT INTO plugin_store (instance, key, value) VALUES (?, ?, ?) ON CONFLICT (instance, key) DO UPDATE SET value = excluded.value',
          instance,
          key,
          json,
        );
        used = total;
      });
    },
    async delete(key) {
      await write(async () => {
        const before = await usage();
        const size = await sizeOf(key);
        await db.run('DELETE FROM plugin_store WHERE instance = ? AND key = ?', instance, key);
        used = before - size;
      });
    },
  };
}
