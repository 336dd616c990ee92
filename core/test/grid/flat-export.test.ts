// The Site settings' flat export price (`prices.exportPrice`) beside a provider of import
// prices only (Tibber, aWATTar, Nordpool): the price book answers export prices over the
// import slots' times, keeps them from when they apply on, and leaves a provider's own
// export series alone.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../src/clock.js';
import { migrate, openDatabase } from '../../src/db.js';
import { gridAnswer } from '../../src/api/grid/answer.js';
import type { GridResponse, ImportExportSlot as ImportExportSlotJson } from '../../src/contract/types.js';
import { PriceBook } from '../../src/grid/book.js';
import { PriceHistory, priceMigrations } from '../../src/grid/price-history.js';
import { tempDir } from '../helpers/tmp.js';

const H = 3_600_000;
const DAY_START = Date.parse('2026-06-01T00:00:00Z');

const hours = (from: number, count: number, price: (i: number) => number) =>
  Array.from({ length: count }, (_, i) => ({ start: from + i * H, end: from + (i + 1) * H, price: price(i) }));

const slotsOf = (grid: GridResponse) => (grid.pricing?.slots ?? []) as ImportExportSlotJson[];

async function open(exportPrice: number | null, options: { multiplier?: number; offset?: number } = {}) {
  const clock = new ManualClock(DAY_START);
  const db = await openDatabase(join(tempDir(), 'prices.db'));
  await migrate(db, priceMigrations);
  const history = new PriceHistory(db, clock);
  const settings = { timeZone: 'UTC', multiplier: options.multiplier ?? 1, offset: options.offset ?? 0 };
  const book = new PriceBook({ clock, ...settings, exportPrice, history });
  const exportsKept = async () => {
    await history.flush();
    return (await history.read('export', DAY_START, DAY_START + 48 * H, 'EUR')).map((s) => s.price);
  };
  return { clock, db, history, book, settings, exportsKept };
}

test('a provider without export prices and a flat export price: /grid answers export_price for every slot', async () => {
  const { db, book, exportsKept } = await open(0.08, { multiplier: 1.5, offset: 0.01 });
  book.declare('tibber', { provider: 'Tibber', currency: 'EUR', scheduleType: 'pricing' });
  book.publish('tibber', { import: hours(DAY_START, 24, (i) => 0.1 + i / 100) });
  const grid = gridAnswer(book.schedule());
  assert.equal(grid.schedule_type, 'import_export_pricing');
  const slots = slotsOf(grid);
  assert.equal(slots.length, 24);
  // Raw like a provider's price: multiplier and offset apply to it as to every grid price.
  assert.deepEqual(new Set(slots.map((s) => s.export_price)), new Set([0.13]), '0.08 x 1.5 + 0.01');
  assert.equal(slots[3]!.import_price, 0.205, '0.13 x 1.5 + 0.01');
  assert.deepEqual(
    slots.slice(0, 3).map((s) => s.export_rank),
    [1, 2, 3],
    'equal prices rank the earlier slot first',
  );
  // Kept raw, as kind 'export', for the energy answer's money.
  assert.deepEqual(await exportsKept(), Array<number>(24).fill(0.08));
  await db.close();
});

test('without the setting the answer stays `pricing`, and nothing is kept as export', async () => {
  const { db, book, exportsKept } = await open(null);
  book.declare('tibber', { provider: 'Tibber', currency: 'EUR', scheduleType: 'pricing' });
  book.publish('tibber', { import: hours(DAY_START, 24, () => 0.2) });
  const grid = gridAnswer(book.schedule());
  assert.equal(grid.schedule_type, 'pricing');
  assert.ok(grid.pricing!.slots.every((s) => 'price' in s));
  assert.deepEqual(await exportsKept(), []);
  await db.close();
});

test("a provider's own export series wins over the setting", async () => {
  const { db, book, exportsKept } = await open(0.08);
  book.declare('octopus', { provider: 'Octopus', currency: 'EUR', scheduleType: 'import_export_pricing' });
  book.publish('octopus', { import: hours(DAY_START, 24, () => 0.2), export: hours(DAY_START, 24, () => 0.15) });
  assert.deepEqual(new Set(slotsOf(gridAnswer(book.schedule())).map((s) => s.export_price)), new Set([0.15]));
  assert.deepEqual(await exportsKept(), Array<number>(24).fill(0.15));
  await db.close();
});

test('a change of the setting prices the slots not begun yet; those begun keep their price, in /grid and kept', async () => {
  const { clock, db, book, settings, exportsKept } = await open(0.08);
  book.declare('tibber', { provider: 'Tibber', currency: 'EUR', scheduleType: 'pricing' });
  book.publish('tibber', { import: hours(DAY_START, 24, () => 0.2) });

  // 10:30: hours 0..10 have begun; 11..23 get the new price.
  clock.set(DAY_START + 10.5 * H);
  book.reconfigure({ ...settings, exportPrice: 0.1 });
  const expected = [...Array<number>(11).fill(0.08), ...Array<number>(13).fill(0.1)];
  assert.deepEqual(
    slotsOf(gridAnswer(book.schedule())).map((s) => s.export_price),
    expected,
  );
  assert.deepEqual(await exportsKept(), expected);

  // The provider publishes the whole day again at 12:30: the past hours keep what they had.
  clock.set(DAY_START + 12.5 * H);
  book.publish('tibber', { import: hours(DAY_START, 48, () => 0.25) });
  assert.deepEqual(await exportsKept(), [...expected, ...Array<number>(24).fill(0.1)]);
  const range = gridAnswer(await book.rangeSchedule(DAY_START, DAY_START + 24 * H));
  assert.deepEqual(
    slotsOf(range).map((s) => s.export_price),
    expected,
  );

  // Off at 20:30: the hours not begun earn nothing from then on (kept at 0); the answer has no export prices.
  clock.set(DAY_START + 20.5 * H);
  book.reconfigure({ ...settings, exportPrice: null });
  assert.equal(gridAnswer(book.schedule()).schedule_type, 'pricing');
  assert.deepEqual(await exportsKept(), [
    ...Array<number>(11).fill(0.08),
    ...Array<number>(10).fill(0.1),
    ...Array<number>(27).fill(0),
  ]);
  await db.close();
});

test('a provider of import prices that becomes active gets the flat price from then on', async () => {
  const { clock, db, book, exportsKept } = await open(0.07);
  const drop = book.declare('demo', { provider: 'Demo', currency: 'EUR', scheduleType: 'pricing', demo: true });
  book.publish('demo', { import: hours(DAY_START, 24, () => 0.3) });
  clock.set(DAY_START + 5.5 * H);
  book.declare('awattar', { provider: 'aWATTar', currency: 'EUR', scheduleType: 'pricing' });
  book.publish('awattar', { import: hours(DAY_START, 24, () => 0.2) });
  drop();
  assert.equal(gridAnswer(book.schedule()).provider, 'aWATTar');
  assert.deepEqual(await exportsKept(), Array<number>(24).fill(0.07));
  assert.deepEqual(
    slotsOf(gridAnswer(book.schedule())).map((s) => s.export_price),
    [...Array<null>(6).fill(null), ...Array<number>(18).fill(0.07)],
    'the hours begun before it took over keep what was kept (the demo source’s price)',
  );
  await db.close();
});
