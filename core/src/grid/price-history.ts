import type { PriceSlot } from '@heliograph/plugins-sdk';
import type { Clock } from '../clock.js';
import type { Db, Migration } from '../db.js';
import { DbWriter } from '../db-writer.js';
import { createLogger, errorMessage } from '../log.js';

const log = createLogger('grid');

export const priceMigrations: Migration[] = [
  {
    id: 'prices:1',
    // One row per slot and kind, keyed by its start: a later publish of the same time
    // replaces it. Prices are stored raw (as the plugin sent them), like the PriceBook's.
    sql: `CREATE TABLE price_slots (
      kind TEXT NOT NULL,
      start INTEGER NOT NULL,
      end INTEGER NOT NULL,
      price REAL NOT NULL,
      currency TEXT NOT NULL,
      provider TEXT NOT NULL,
      PRIMARY KEY (kind, start)
    ) WITHOUT ROWID`,
  },
];

/** `standing`: the standing charge, a charge per slot (not per kWh); stored raw like the others. */
export type PriceKind = 'import' | 'export' | 'standing';

/** How long past prices are kept: two years, so last year's same month can be costed. */
export const PRICE_RETENTION_DAYS = 730;
const DAY_MS = 86_400_000;
/** Slots per INSERT statement (6 parameters each, well under SQLite's limit). */
const INSERT_CHUNK = 500;

/**
 * The grid prices that were in force, kept in the database file so the cost of past days
 * survives a restart and outlives the PriceBook's memory (today onwards). Each publish of
 * the active provider replaces the stored slots its range covers (as the book does), and
 * slots older than the retention are deleted once a day. A quarter-hour provider adds 96
 * rows a day per kind: two years are about 140,000 rows.
 */
export class PriceHistory {
  private last: Promise<void> = Promise.resolve();
  private prunedAt = -Infinity;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly writer: DbWriter = new DbWriter(() => clock.now()),
    private readonly retentionDays = PRICE_RETENTION_DAYS,
  ) {}

  /**
   * Queues the slots of one publish (sorted, valid) for writing; a failure is logged, the
   * slots stay in the book's memory for today and tomorrow.
   */
  record(args: { kind: PriceKind; slots: readonly PriceSlot[]; currency: string; provider: string }): void {
    const { kind, slots, currency, provider } = args;
    if (slots.length === 0) return;
    const first = slots[0]!.start;
    const last = Math.max(...slots.map((s) => s.end));
    const write = this.writer.run('grid prices', async () => {
      // No BEGIN: on the shared connection a transaction would take in whatever else runs on
      // it meanwhile (audit entries, tokens), and a rollback would drop those. The new slots
      // go in first (one of the same start replaces the old one), then the old ones they
      // cover at other starts go: a crash between the two leaves old slots beside the new
      // ones until the next publish, never a gap.
      for (let i = 0; i < slots.length; i += INSERT_CHUNK) {
        const chunk = slots.slice(i, i + INSERT_CHUNK);
        await this.db.run(
          `INSERT OR REPLACE INTO price_slots (kind, start, end, price, currency, provider) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
          ...chunk.flatMap((s) => [kind, s.start, s.end, s.price, currency, provider]),
        );
      }
      await this.db.run(
        'DELETE FROM price_slots WHERE kind = ? AND start < ? AND end > ? AND start NOT IN (SELECT value FROM json_each(?))',
        kind,
        last,
        first,
        JSON.stringify(slots.map((s) => s.start)),
      );
      await this.prune();
    });
    this.last = write.catch((err: unknown) =>
      log.warn(`grid prices from ${provider} not saved (${errorMessage(err)}); past costs will miss them`),
    );
  }

  /** Resolves once every queued write has finished (or failed). */
  flush(): Promise<void> {
    return this.last;
  }

  /** The stored raw slots of `kind` in `currency` that overlap [from, to), in time order. */
  async read(kind: PriceKind, from: number, to: number, currency: string): Promise<PriceSlot[]> {
    const rows = await this.db.all<Array<{ start: number; end: number; price: number }>>(
      'SELECT start, end, price FROM price_slots WHERE kind = ? AND currency = ? AND start < ? AND end > ? ORDER BY start',
      kind,
      currency,
      to,
      from,
    );
    return rows.map((r) => ({ start: r.start, end: r.end, price: r.price }));
  }

  private async prune(): Promise<void> {
    const now = this.clock.now();
    if (now - this.prunedAt < DAY_MS) return;
    this.prunedAt = now;
    await this.db.run('DELETE FROM price_slots WHERE end < ?', now - this.retentionDays * DAY_MS);
  }
}
