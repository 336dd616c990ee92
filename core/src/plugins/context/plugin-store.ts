import type { PluginStore } from '@heliograph/plugins-sdk';
import type { Db, Migration } from '../../db.js';
import type { DbWriter } from '../../db-writer.js';

export const pluginStoreMigrations: Migration[] = [
  {
    id: 'plugin-store:1',
    sql: 'CREATE TABLE plugin_store (instance TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (instance, key))',
  },
];

/**
 * `ctx.store`: one instance's keys in the shared plugin_store table, values as JSON. Writes
 * take their turn on the server's one write path when it is given (db-writer.ts).
 */
export function pluginStore(db: Db, instance: string, writer?: DbWriter): PluginStore {
  const write = <T>(job: () => Promise<T>) => (writer ? writer.run(`the store of ${instance}`, job) : job());
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
      await write(() =>
        db.run(
          'INSERT INTO plugin_store (instance, key, value) VALUES (?, ?, ?) ON CONFLICT (instance, key) DO UPDATE SET value = excluded.value',
          instance,
          key,
          JSON.stringify(value),
        ),
      );
    },
    async delete(key) {
      await write(() => db.run('DELETE FROM plugin_store WHERE instance = ? AND key = ?', instance, key));
    },
  };
}
