import type { MetricValue } from '@heliograph/plugins-sdk';
import type { AuditEntry as ApiAuditEntry } from '../contract/types.js';
import type { DbWriter } from '../db-writer.js';
import type { Db, Migration } from '../db.js';
import { formatUtc } from '../rfc3339.js';
import type { Clock } from '../clock.js';
import { AuditQueue } from './audit-queue.js';

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

/**
 * Where a write came from: `rest` (REST API, and setup changes), `ws` (the WebSocket's `set`),
 * or the id of the plugin that wrote through `ctx.site.write` / `ctx.integration.write`
 * (`mqtt`, `planner`). Plugin ids are lower-case words and never `rest` or `ws`.
 */
export type WriteVia = 'rest' | 'ws' | (string & {});

export interface AuditEntry {
  time: number;
  who: string;
  via: WriteVia;
  topic: string;
  oldValue: MetricValue | string;
  newValue: string;
  result: 'ok' | 'error';
  message: string | null;
  /**
   * The device's own driver wrote it (ending a forced battery command at its start or stop):
   * told to `ctx.site.onWrite` listeners, not kept in the audit table.
   */
  byDriver?: boolean;
}

/** Longest topic, value and message the audit keeps; a client may send 30 KB of topic. */
export const AUDIT_TEXT_LIMIT = 200;

/** Text cut to `limit` characters, saying how much was cut. */
export function capText(text: string, limit = AUDIT_TEXT_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}... (${text.length - limit} more characters)`;
}

/**
 * Every write attempt, refused ones included, newest first on read. Entries are queued and
 * written in batches (AuditQueue) through the server's one DbWriter; `add` resolves once
 * the entry is on disk, and the write path acknowledges a write only then.
 */
export class AuditLog {
  private readonly queue: AuditQueue;

  constructor(
    private readonly db: Db,
    clock: Clock,
    writer: DbWriter,
  ) {
    this.queue = new AuditQueue(db, writer, () => clock.now());
  }

  /**
   * Queues an entry and resolves once it is written (a busy or failing database is retried,
   * never given up: see {@link AuditLog.trouble}). Texts longer than AUDIT_TEXT_LIMIT are cut.
   */
  add(entry: AuditEntry): Promise<void> {
    const oldValue = JSON.stringify(entry.oldValue ?? null);
    return this.queue.push([
      entry.time,
      entry.who,
      entry.via,
      capText(entry.topic),
      oldValue.length > AUDIT_TEXT_LIMIT ? JSON.stringify(capText(String(entry.oldValue))) : oldValue,
      capText(entry.newValue),
      entry.result,
      entry.message === null ? null : capText(entry.message, AUDIT_TEXT_LIMIT * 2),
    ]);
  }

  /** Writes every queued entry (before a read, and at shutdown). */
  flush(): Promise<void> {
    return this.queue.drain();
  }

  /** Why entries are waiting to be written (the status shows it), or null. */
  get trouble(): string | null {
    return this.queue.trouble;
  }

  /** Stops retrying (shutdown, after a last flush). */
  close(): void {
    this.queue.close();
  }

  /** The newest `limit` entries as the API shows them. */
  async list(limit: number): Promise<ApiAuditEntry[]> {
    await this.flush();
    const rows = await this.db.all<
      Array<{
        time: number;
        who: string;
        via: WriteVia;
        topic: string;
        old_value: string | null;
        new_value: string;
        result: 'ok' | 'error';
        message: string | null;
      }>
    >('SELECT time, who, via, topic, old_value, new_value, result, message FROM audit ORDER BY id DESC LIMIT ?', limit);
    return rows.map((r) => ({
      time: formatUtc(r.time),
      who: r.who,
      via: r.via,
      topic: r.topic,
      old_value: r.old_value === null ? null : (JSON.parse(r.old_value) as unknown),
      new_value: r.new_value,
      result: r.result,
      message: r.message,
    }));
  }
}
