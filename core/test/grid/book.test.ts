import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PriceSlot } from '@heliograph/plugins-sdk';
import { DateTime } from 'luxon';
import { ManualClock } from '../../src/clock.js';
import { gridAnswer } from '../../src/api/grid/answer.js';
import type { ImportExportSlot as ImportExportSlotJson, PriceSlot as PriceSlotJson } from '../../src/contract/types.js';
import { PriceBook } from '../../src/grid/book.js';

const ZONE = 'Europe/Berlin';
const Q = 15 * 60_000;

/** Quarter-hour slots of whole local days in Berlin, priced by `price(i)` (i counts from the first slot). */
function localDays(firstDay: string, days: number, price: (i: number) => number, slotMs = Q): PriceSlot[] {
  const start = DateTime.fromISO(firstDay, { zone: ZONE }).startOf('day');
  const end = start.plus({ days }).toMillis();
  const slots: PriceSlot[] = [];
  for (let t = start.toMillis(), i = 0; t < end; t += slotMs, i++)
    slots.push({ start: t, end: t + slotMs, price: price(i) });
  return slots;
}

/** A deterministic price series with many ties (prices from a small set of values). */
const tiedPrice = (i: number) => [0.21, 0.18, 0.3, 0.18, -0.02, 0.25, 0.21][(i * 5 + Math.floor(i / 7)) % 7]!;

function localDayOf(rfc3339: string): string {
  return DateTime.fromISO(rfc3339, { zone: ZONE }).toISODate()!;
}

function groupByDay<T extends { from: string }>(slots: T[]): Map<string, T[]> {
  const days = new Map<string, T[]>();
  for (const slot of slots) {
    const day = localDayOf(slot.from);
    days.set(day, [...(days.get(day) ?? []), slot]);
  }
  return days;
}

/** Rank by definition: 1 + slots of the day that are better, or as good and earlier. */
function expectedRank<T extends { from: string }>(
  day: T[],
  i: number,
  price: (s: T) => number,
  better: (a: number, b: number) => boolean,
): number {
  const p = price(day[i]!);
  return 1 + day.filter((s, j) => better(price(s), p) || (price(s) === p && j < i)).length;
}

function book(now: string, options: { multiplier?: number; offset?: number } = {}) {
  const clock = new ManualClock(Date.parse(now));
  return {
    clock,
    book: new PriceBook({ clock, timeZone: ZONE, multiplier: options.multiplier ?? 1, offset: options.offset ?? 0 }),
  };
}

describe('PriceBook', () => {
  it('answers provider "none" without prices when no price plugin is configured', () => {
    assert.deepEqual(gridAnswer(book('2026-10-25T08:00:00Z').book.schedule()), {
      provider: 'none',
      schedule_type: 'pricing',
      pricing: null,
    });
  });

  it('answers pricing null for a provider without dynamic prices', () => {
    const { book: b } = book('2026-10-25T08:00:00Z');
    b.declare('fixed', { provider: 'Fixed tariff', scheduleType: 'none' });
    assert.deepEqual(gridAnswer(b.schedule()), { provider: 'Fixed tariff', schedule_type: 'pricing', pricing: null });
  });

  it('ranks each local day 1..n (ties earlier first) and premiums sum to zero, on both DST days', () => {
    for (const [day, quarterHours] of [
      ['2026-10-25', 100],
      ['2026-03-29', 92],
    ] as const) {
      const { book: b } = book(`${day}T00:30:00Z`);
      b.declare('tibber', { provider: 'Tibber', currency: 'EUR', scheduleType: 'pricing' });
      b.publish('tibber', { import: localDays(day, 2, tiedPrice) });
      const response = gridAnswer(b.schedule());
      assert.equal(response.pricing!.unit, 'EUR/kWh');
      assert.equal(response.pricing!.currency, 'EUR');
      const slots = response.pricing!.slots as PriceSlotJson[];
      const days = groupByDay(slots);
      assert.deepEqual([...days.keys()], [day, DateTime.fromISO(day).plus({ days: 1 }).toISODate()]);
      assert.equal(days.get(day)!.length, quarterHours, `${day} has ${quarterHours} quarter hours`);
      assert.equal(slots[0]!.from, DateTime.fromISO(day, { zone: ZONE }).toUTC().toISO({ suppressMilliseconds: true }));
      for (const daySlots of days.values()) {
        const ranks = daySlots.map((s) => s.rank);
        assert.deepEqual(
          [...ranks].sort((a, b) => a - b),
          daySlots.map((_, i) => i + 1),
          'ranks run 1..n, all distinct',
        );
        daySlots.forEach((s, i) =>
          assert.equal(
            s.rank,
            expectedRank(
              daySlots,
              i,
              (x) => x.price,
              (a, b) => a < b,
            ),
          ),
        );
        const sum = daySlots.reduce((acc, s) => acc + s.premium, 0);
        assert.ok(Math.abs(sum) <= daySlots.length * 5e-6, `premiums of ${day} sum to ${sum}`);
        const average = daySlots.reduce((acc, s) => acc + s.price, 0) / daySlots.length;
        for (const s of daySlots) assert.ok(Math.abs(s.premium - (s.price - average)) <= 5e-6);
      }
    }
  });

  it('applies multiplier and offset, rounded to 5 decimals, with no float noise', () => {
    const { book: b } = book('2026-06-01T08:00:00Z', { multiplier: 1.19, offset: 0.1 });
    b.declare('awattar', { provider: 'aWATTar', currency: 'EUR', scheduleType: 'pricing' });
    b.publish('awattar', { import: localDays('2026-06-01', 1, (i) => [0.2002, 0.1, -0.05][i % 3]!, 3_600_000) });
    const slots = gridAnswer(b.schedule()).pricing!.slots as PriceSlotJson[];
    assert.equal(slots.length, 24, 'hourly slots keep their length');
    assert.deepEqual(
      slots.slice(0, 3).map((s) => s.price),
      [0.33824, 0.219, 0.0405],
    );
    assert.equal(slots[0]!.to, '2026-05-31T23:00:00Z');
    assert.equal(slots[0]!.from, '2026-05-31T22:00:00Z');
  });

  it('ranks export 1 = highest paying, separately from import', () => {
    const { book: b } = book('2026-10-25T12:00:00Z');
    b.declare('octopus', { provider: 'Octopus Energy', currency: 'GBP', scheduleType: 'import_export_pricing' });
    const imports = localDays('2026-10-25', 1, tiedPrice, 30 * 60_000);
    const exports = localDays('2026-10-25', 1, (i) => tiedPrice(i + 3) / 2, 30 * 60_000);
    b.publish('octopus', { import: imports, export: exports });
    const response = gridAnswer(b.schedule());
    assert.equal(response.schedule_type, 'import_export_pricing');
    const slots = response.pricing!.slots as ImportExportSlotJson[];
    assert.equal(slots.length, 50, '2026-10-25 has 50 half hours in Berlin');
    slots.forEach((s, i) => {
      assert.equal(
        s.import_rank,
        expectedRank(
          slots,
          i,
          (x) => x.import_price,
          (a, b) => a < b,
        ),
      );
      assert.equal(
        s.export_rank,
        expectedRank(
          slots,
          i,
          (x) => x.export_price!,
          (a, b) => a > b,
        ),
      );
    });
    const best = slots.find((s) => s.export_rank === 1)!;
    assert.equal(best.export_price, Math.max(...slots.map((s) => s.export_price!)));
    assert.ok(Math.abs(slots.reduce((acc, s) => acc + s.export_premium!, 0)) <= 50 * 5e-6);
    assert.deepEqual(Object.keys(slots[0]!).sort(), [
      'export_premium',
      'export_price',
      'export_rank',
      'from',
      'import_premium',
      'import_price',
      'import_rank',
      'to',
    ]);
  });

  it('shows slots from the start of the current local day, and a new publish replaces only what it covers', () => {
    const { book: b, clock } = book('2026-06-02T10:00:00Z');
    b.declare('nordpool', { provider: 'Nord Pool', currency: 'EUR', scheduleType: 'pricing' });
    b.publish('nordpool', { import: localDays('2026-06-01', 2, () => 0.1) });
    let slots = gridAnswer(b.schedule()).pricing!.slots as PriceSlotJson[];
    assert.equal(slots[0]!.from, '2026-06-01T22:00:00Z', 'yesterday is not shown');
    assert.equal(slots.length, 96);
    // Tomorrow arrives: today stays as it was.
    b.publish('nordpool', { import: localDays('2026-06-03', 1, () => 0.3) });
    slots = gridAnswer(b.schedule()).pricing!.slots as PriceSlotJson[];
    assert.equal(slots.length, 192);
    assert.equal(slots.at(-1)!.to, '2026-06-03T22:00:00Z', 'up to the last published slot');
    // A corrected afternoon replaces just those slots.
    const afternoon = localDays('2026-06-02', 1, () => 0.2).slice(56, 64);
    b.publish('nordpool', { import: afternoon });
    slots = gridAnswer(b.schedule()).pricing!.slots as PriceSlotJson[];
    assert.equal(slots.length, 192);
    assert.deepEqual(
      slots.slice(55, 65).map((s) => s.price),
      [0.1, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.1],
    );
    clock.set(Date.parse('2026-06-03T06:00:00Z'));
    slots = gridAnswer(b.schedule()).pricing!.slots as PriceSlotJson[];
    assert.equal(slots.length, 96, 'at the next local day only it is shown');
  });

  it('keeps the first declared provider active and lets a standby take over when it stops', () => {
    const { book: b } = book('2026-06-01T10:00:00Z');
    const stopFirst = b.declare('awattar', { provider: 'aWATTar', currency: 'EUR', scheduleType: 'pricing' });
    b.declare('tibber', { provider: 'Tibber', currency: 'EUR', scheduleType: 'pricing' });
    b.publish('awattar', { import: localDays('2026-06-01', 1, () => 0.1) });
    b.publish('tibber', { import: localDays('2026-06-01', 1, () => 0.2) });
    assert.equal(gridAnswer(b.schedule()).provider, 'aWATTar');
    assert.equal((gridAnswer(b.schedule()).pricing!.slots[0] as PriceSlotJson).price, 0.1);
    stopFirst();
    assert.equal(gridAnswer(b.schedule()).provider, 'Tibber');
    assert.equal((gridAnswer(b.schedule()).pricing!.slots[0] as PriceSlotJson).price, 0.2);
  });

  it('prefers a real price provider over declared demo prices, whichever declared first', () => {
    const { book: b } = book('2026-06-01T10:00:00Z');
    b.declare('sim', { provider: 'Simulator', currency: 'EUR', scheduleType: 'pricing', demo: true });
    b.publish('sim', { import: localDays('2026-06-01', 1, () => 0.3) });
    assert.equal(gridAnswer(b.schedule()).provider, 'Simulator');
    const stop = b.declare('awattar', { provider: 'aWATTar', currency: 'EUR', scheduleType: 'pricing' });
    b.publish('awattar', { import: localDays('2026-06-01', 1, () => 0.1) });
    assert.equal(gridAnswer(b.schedule()).provider, 'aWATTar');
    assert.equal((gridAnswer(b.schedule()).pricing!.slots[0] as PriceSlotJson).price, 0.1);
    stop();
    assert.equal(
      gridAnswer(b.schedule()).provider,
      'Simulator',
      'the demo stands in again when the price plugin stops',
    );
  });

  it('keeps a provider with slots active when it is declared anew behind a standby that has none', () => {
    // Reconfiguring the working price plugin restarts it, so it declares again
    // after the standby; the empty standby must not become the provider /grid shows.
    const { book: b } = book('2026-06-01T10:00:00Z');
    const stopWorking = b.declare('awattar', { provider: 'aWATTar', currency: 'EUR', scheduleType: 'pricing' });
    b.publish('awattar', { import: localDays('2026-06-01', 1, () => 0.1) });
    b.declare('tibber', { provider: 'Tibber', currency: 'EUR', scheduleType: 'pricing' });
    stopWorking();
    b.declare('awattar', { provider: 'aWATTar', currency: 'EUR', scheduleType: 'pricing' });
    b.publish('awattar', { import: localDays('2026-06-01', 1, () => 0.1) });
    const response = gridAnswer(b.schedule());
    assert.equal(response.provider, 'aWATTar');
    assert.equal(response.pricing!.slots.length, 96);
    b.publish('tibber', { import: localDays('2026-06-01', 1, () => 0.2) });
    assert.equal(
      gridAnswer(b.schedule()).provider,
      'aWATTar',
      'once both have slots, the earlier declared stays active',
    );
  });

  it('prefers a demo with slots to nothing, but any real provider with slots to the demo', () => {
    const { book: b } = book('2026-06-01T10:00:00Z');
    b.declare('tibber', { provider: 'Tibber', currency: 'EUR', scheduleType: 'pricing' });
    b.declare('sim', { provider: 'Simulator', currency: 'EUR', scheduleType: 'pricing', demo: true });
    assert.equal(gridAnswer(b.schedule()).provider, 'Tibber', 'while nobody has slots, a real provider is named');
    b.publish('sim', { import: localDays('2026-06-01', 1, () => 0.3) });
    assert.equal(
      gridAnswer(b.schedule()).provider,
      'Simulator',
      'the demo shows its slots while the real one has none',
    );
    b.publish('tibber', { import: localDays('2026-06-01', 1, () => 0.2) });
    assert.equal(gridAnswer(b.schedule()).provider, 'Tibber');
  });

  it('refuses a declaration without currency and a publish before declare', () => {
    const { book: b } = book('2026-06-01T10:00:00Z');
    assert.throws(() => b.declare('x', { provider: 'X', scheduleType: 'pricing' }), /currency is required/);
    assert.throws(() => b.publish('y', { import: [] }), /before prices.declare/);
  });
});
