import type { MetricValue } from '@heliograph/plugins-sdk';
import type { AuditEntry as ApiAuditEntry } from '../api-types.js';
import { inject, injectable } from '../container/di.js';
import { DB } from '../container/tokens.js';
import type { Db, Migration } from '../db.js';
import { formatUtc } from '../rfc3339.js';

export const auditMigrations: Migration[] = [
  {
    id: 'audit:1',
    sql: `CREATE TABLE audit (
      id INTEGER PRIMARY KEY,
      time INTEGER NOT NULL,
      who TEXT NOT NULL,
      via TEXT NOT NULL,
      topic TEXT NOT NULL,
      old_value TEXT,
      new_value TEXT,
      result TEXT NOT NULL,
      message TEXT
    )`,
  },
];

export interface AuditEntry {
  time: number;
  who: string;
  via: 'rest' | 'ws';
  topic: string;
  oldValue: MetricValue | string;
  newValue: string;
  result: 'ok' | 'error';
  message: string | null;
}

/** Every write attempt, refused ones included, newest first on read. */
@injectable()
export class AuditLog {
  constructor(@inject(DB) private readonly db: Db) {}

  async add(entry: AuditEntry): Promise<void> {
    await this.db.run(
      'INSERT INTO audit (time, who, via, topic, old_value, new_value, result, message) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      entry.time,
      entry.who,
      entry.via,
      entry.topic,
      JSON.stringify(entry.oldValue ?? null),
      entry.newValue,
      entry.result,
      entry.message,
    );
  }

  /** The newest `limit` entries as the API shows them. */
  async list(limit: number): Promise<ApiAuditEntry[]> {
    const rows = await this.db.all<
      Array<{ time: number; who: string; via: 'rest' | 'ws'; topic: string; old_value: string | null; new_value: string; result: 'ok' | 'error'; message: string | null }>
    >('SELECT time, who, via, topic, old_value, new_value, result, message FROM audit ORDER BY id DESC LIMIT ?', limit);
    return rows.map((r) => ({
      time: formatUtc(r.time),
      who: r.who,
      via: r.via,
      topic: r.topic,
      old_value: r.old_value === null ? null : JSON.parse(r.old_value),
      new_value: r.new_value,
      result: r.result,
      message: r.message,
    }));
  }
}
