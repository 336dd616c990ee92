import type { PluginStore } from '@heliograph/plugins-sdk';
import type { Db, Migration } from '../db.js';

export const pluginStoreMigrations: Migration[] = [
  {
    id: 'plugin-store:1',
    sql: 'CREATE TABLE plugin_store (instance TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (instance, key))',
  },
];

/** `ctx.store`: one instance's keys in the shared plugin_store table, values as JSON. */
export function pluginStore(db: Db, instance: string): PluginStore {
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
      await db.run(
        'INSERT INTO plugin_store (instance, key, value) VALUES (?, ?, ?) ON CONFLICT (instance, key) DO UPDATE SET value = excluded.value',
        instance,
        key,
        JSON.stringify(value),
      );
    },
    async delete(key) {
      await db.run('DELETE FROM plugin_store WHERE instance = ? AND key = ?', instance, key);
    },
  };
}
