import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../src/clock.js';
import { migrate, openDatabase } from '../../src/db.js';
import { gridAnswer } from '../../src/api/grid/answer.js';
import { PriceBook } from '../../src/grid/book.js';
import { PriceHistory, priceMigrations, PRICE_RETENTION_DAYS } from '../../src/grid/price-history.js';
import { tempDir } from '../helpers/tmp.js';

const H = 3_600_000;
const DAY = 24 * H;
const NOW = Date.parse('2026-06-01T10:00:00Z');

async function open(file: string, clock: ManualClock) {
  const db = await openDatabase(file);
  await migrate(db, priceMigrations);
  const history = new PriceHistory(db, clock);
  const book = new PriceBook({ clock, timeZone: 'UTC', multiplier: 2, offset: 0.01, history });
  return { db, history, book };
}

const hours = (from: number, count: number, price: (i: number) => number) =>
  Array.from({ length: count }, (_, i) => ({ start: from + i * H, end: from + (i + 1) * H, price: price(i) }));

test('a publish replaces the saved slots its range covers, keeps the others, and the book answers past ranges', async () => {
  const clock = new ManualClock(NOW);
  const file = join(tempDir(), 'h.db');
  const { db, history, book } = await open(file, clock);
  book.declare('p', { provider: 'P', currency: 'EUR', scheduleType: 'import_export_pricing' });
  const day = Date.parse('2026-05-25T00:00:00Z');
  // A provider that sends a past week at once (what the simulator does for its backfill).
  book.publish('p', { import: hours(day, 7 * 24, () => 0.1), export: hours(day, 7 * 24, () => 0.05) });
  // A later publish of the last day at other prices replaces just that day.
  book.publish('p', { import: hours(day + 6 * DAY, 24, (i) => 0.2 + i / 100) });
  await history.flush();
  assert.equal((await history.read('import', day, day + 7 * DAY, 'EUR')).length, 168);
  assert.equal((await history.read('import', day, day + 7 * DAY, 'USD')).length, 0, 'another currency');
  await db.close();

  const again = await open(file, clock);
  again.book.declare('p', { provider: 'P', currency: 'EUR', scheduleType: 'import_export_pricing' });
  const answer = gridAnswer(await again.book.rangeSchedule(day, day + 7 * DAY));
  assert.equal(answer.schedule_type, 'import_export_pricing');
  const slots = answer.pricing!.slots as Array<{ from: string; import_price: number; export_price: number | null }>;
  assert.equal(slots.length, 168);
  // Multiplier and offset of now are applied: 0.1 * 2 + 0.01.
  assert.equal(slots[0]!.import_price, 0.21);
  assert.equal(slots[0]!.export_price, 0.11);
  assert.equal(slots[6 * 24 + 1]!.import_price, 0.43);
  await again.db.close();
});

test('slots older than the retention are deleted when prices are next saved', async () => {
  const clock = new ManualClock(NOW);
  const { db, history } = await open(join(tempDir(), 'h.db'), clock);
  const old = NOW - (PRICE_RETENTION_DAYS + 2) * DAY;
  history.record({ kind: 'import', slots: hours(old, 24, () => 0.1), currency: 'EUR', provider: 'P' });
  history.record({ kind: 'import', slots: hours(NOW - DAY, 24, () => 0.1), currency: 'EUR', provider: 'P' });
  await history.flush();
  assert.equal((await history.read('import', old, NOW, 'EUR')).length, 24, 'pruned at the first save');
  clock.advance(DAY + H);
  history.record({ kind: 'import', slots: hours(NOW, 24, () => 0.1), currency: 'EUR', provider: 'P' });
  await history.flush();
  const left = await history.read('import', 0, NOW + 2 * DAY, 'EUR');
  assert.equal(left.length, 48);
  assert.equal(left[0]!.start, NOW - DAY);
  await db.close();
});
