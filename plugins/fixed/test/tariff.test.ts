// The schedule expansion (local days of the site's zone, DST days, weekends, seasons) and the
// config's checks of a schedule, with the messages an owner reads.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PriceSlot } from '@heliograph/plugins-sdk';
import { configSchema, tariffOf } from '../src/index.js';
import { expandTariff, type Tariff } from '../src/expand.js';

const H = 3_600_000;

/** The tariff of a config, which must be valid. */
function tariff(config: unknown): Tariff {
  const parsed = configSchema.safeParse(config);
  assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues));
  return tariffOf(parsed.data)!;
}

/** The problems the config check finds, as `path: message`. */
function problems(config: unknown): string[] {
  const parsed = configSchema.safeParse(config);
  assert.ok(!parsed.success, 'the config should be refused');
  return parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

/** One local day's slots, checked to tile the day: each starts where the one before ended. */
function oneDay(t: Tariff, zone: string, day: string) {
  const now = Date.parse(`${day}T12:00:00Z`);
  const slots = expandTariff(t, { now, zone, days: 1 });
  const { import: imports } = slots;
  for (let i = 1; i < imports.length; i++) assert.equal(imports[i]!.start, imports[i - 1]!.end, `slot ${i} follows on`);
  return slots;
}

/** The price in force at a local wall-clock time, `2026-01-14T05:59` in `zone`. */
function priceAt(slots: PriceSlot[], instant: number): number | undefined {
  return slots.find((s) => s.start <= instant && instant < s.end)?.price;
}

const hphc = {
  currency: 'EUR',
  importPeriods: [
    { start: '22:00', end: '06:00', price: 0.2068 },
    { start: '06:00', end: '22:00', price: 0.27 },
  ],
};

describe('expanding a tariff into slots', () => {
  test('HP/HC in Paris: off-peak 22:00-06:00 local, hourly slots of the local day', () => {
    // 2026-01-14 is a Wednesday; Paris is UTC+1 in winter.
    const { import: slots, export: exports, standing } = oneDay(tariff(hphc), 'Europe/Paris', '2026-01-14');
    assert.equal(slots.length, 24);
    assert.equal(slots[0]!.start, Date.parse('2026-01-13T23:00:00Z'), 'from local midnight');
    assert.equal(slots.at(-1)!.end, Date.parse('2026-01-14T23:00:00Z'));
    assert.equal(priceAt(slots, Date.parse('2026-01-14T04:59:00Z')), 0.2068, '05:59 local is off-peak');
    assert.equal(priceAt(slots, Date.parse('2026-01-14T05:00:00Z')), 0.27, '06:00 local is peak');
    assert.equal(priceAt(slots, Date.parse('2026-01-14T20:59:00Z')), 0.27, '21:59 local is peak');
    assert.equal(priceAt(slots, Date.parse('2026-01-14T21:00:00Z')), 0.2068, '22:00 local is off-peak');
    assert.equal(exports, undefined, 'no export price configured, none published');
    assert.equal(standing, undefined);
  });

  test('Economy 7 cuts slots at the half hour; a flat export and the standing charge follow the day', () => {
    const t = tariff({
      currency: 'GBP',
      importPeriods: [
        { start: '00:30', end: '07:30', price: 0.135 },
        { start: '07:30', end: '00:30', price: 0.289 },
      ],
      standingCharge: 0.5342,
      exportPrice: 0.15,
    });
    const { import: slots, export: exports, standing } = oneDay(t, 'Europe/London', '2026-01-14');
    assert.equal(slots.length, 26, 'the hours 00:00 and 07:00 are cut at :30');
    assert.deepEqual(
      slots.slice(0, 3).map((s) => [new Date(s.start).toISOString().slice(11, 16), s.price]),
      [
        ['00:00', 0.289],
        ['00:30', 0.135],
        ['01:00', 0.135],
      ],
    );
    assert.equal(priceAt(slots, Date.parse('2026-01-14T07:29:00Z')), 0.135);
    assert.equal(priceAt(slots, Date.parse('2026-01-14T07:30:00Z')), 0.289);
    assert.deepEqual(
      exports!.map((s) => [s.start, s.end]),
      slots.map((s) => [s.start, s.end]),
      'export slots share the import slots',
    );
    assert.ok(exports!.every((s) => s.price === 0.15));
    assert.deepEqual(standing, [
      { start: Date.parse('2026-01-14T00:00:00Z'), end: Date.parse('2026-01-15T00:00:00Z'), price: 0.5342 },
    ]);
  });

  test('the spring DST day has 23 hours and the autumn one 25, with a boundary in the repeated hour cut twice', () => {
    const t = tariff({
      currency: 'EUR',
      importPeriods: [
        { start: '02:30', end: '16:00', price: 0.3 },
        { start: '16:00', end: '02:30', price: 0.1 },
      ],
      standingCharge: 0.4,
    });
    // Paris: 2026-03-29 02:00 CET becomes 03:00 CEST; 2026-10-25 03:00 CEST becomes 02:00 CET.
    const spring = oneDay(t, 'Europe/Paris', '2026-03-29');
    assert.equal(spring.import.at(-1)!.end - spring.import[0]!.start, 23 * H);
    assert.equal(spring.import.length, 23, 'the skipped hour 02:00-03:00 has no slot');
    assert.equal(priceAt(spring.import, Date.parse('2026-03-29T00:59:00Z')), 0.1, '01:59 CET');
    assert.equal(priceAt(spring.import, Date.parse('2026-03-29T01:00:00Z')), 0.3, '03:00 CEST: 02:30 has passed');
    assert.equal(spring.standing![0]!.end - spring.standing![0]!.start, 23 * H, 'the charge covers the 23-h day');

    const autumn = oneDay(t, 'Europe/Paris', '2026-10-25');
    assert.equal(autumn.import.at(-1)!.end - autumn.import[0]!.start, 25 * H);
    assert.equal(autumn.import.length, 27, '25 hours, the two 02:00 hours each cut at 02:30');
    assert.equal(priceAt(autumn.import, Date.parse('2026-10-25T00:15:00Z')), 0.1, '02:15 CEST');
    assert.equal(priceAt(autumn.import, Date.parse('2026-10-25T00:45:00Z')), 0.3, '02:45 CEST');
    assert.equal(priceAt(autumn.import, Date.parse('2026-10-25T01:15:00Z')), 0.1, '02:15 CET, the second time');
    assert.equal(priceAt(autumn.import, Date.parse('2026-10-25T01:45:00Z')), 0.3, '02:45 CET');
    assert.equal(autumn.standing![0]!.end - autumn.standing![0]!.start, 25 * H);
  });

  test('weekend rates apply on Saturday and Sunday by the local calendar', () => {
    const t = tariff({
      currency: 'EUR',
      importPeriods: [
        { start: '00:00', end: '16:00', price: 0.2, days: 'weekdays' },
        { start: '16:00', end: '19:00', price: 0.4, days: 'weekdays' },
        { start: '19:00', end: '24:00', price: 0.2, days: 'weekdays' },
        { start: '00:00', end: '00:00', price: 0.15, days: 'weekends' },
      ],
    });
    // Three days from Friday 2026-01-16 in Sydney (UTC+11): Friday, Saturday, Sunday.
    const slots = expandTariff(t, {
      now: Date.parse('2026-01-16T03:00:00Z'),
      zone: 'Australia/Sydney',
      days: 3,
    }).import;
    assert.equal(slots.length, 72);
    assert.equal(priceAt(slots, Date.parse('2026-01-16T05:30:00Z')), 0.4, 'Friday 16:30 local is peak');
    assert.equal(priceAt(slots, Date.parse('2026-01-16T12:59:00Z')), 0.2, 'Friday 23:59 local');
    assert.equal(
      priceAt(slots, Date.parse('2026-01-16T13:00:00Z')),
      0.15,
      'Saturday 00:00 local (still Friday in UTC)',
    );
    assert.equal(priceAt(slots, Date.parse('2026-01-17T05:30:00Z')), 0.15, 'Saturday 16:30 local');
    assert.equal(priceAt(slots, Date.parse('2026-01-18T05:30:00Z')), 0.15, 'Sunday 16:30 local');
  });

  test('a season applies in its months, across the new year', () => {
    const t = tariff({
      currency: 'EUR',
      importPeriods: [
        { start: '17:00', end: '20:00', price: 0.45, months: { from: 11, to: 3 } },
        { start: '20:00', end: '17:00', price: 0.25, months: { from: 11, to: 3 } },
        { start: '00:00', end: '24:00', price: 0.28, months: { from: 4, to: 10 } },
      ],
    });
    const january = oneDay(t, 'UTC', '2026-01-14').import;
    assert.equal(priceAt(january, Date.parse('2026-01-14T18:00:00Z')), 0.45);
    assert.equal(priceAt(january, Date.parse('2026-01-14T12:00:00Z')), 0.25);
    const july = oneDay(t, 'UTC', '2026-07-14').import;
    assert.ok(july.every((s) => s.price === 0.28));
    assert.equal(priceAt(oneDay(t, 'UTC', '2026-11-02').import, Date.parse('2026-11-02T18:00:00Z')), 0.45);
  });

  test('an export schedule of its own cuts the shared slots at its boundaries too', () => {
    const t = tariff({
      currency: 'EUR',
      importPrice: 0.3,
      exportPeriods: [
        { start: '10:15', end: '14:45', price: 0.02 },
        { start: '14:45', end: '10:15', price: 0.08 },
      ],
    });
    const { import: imports, export: exports } = oneDay(t, 'UTC', '2026-06-10');
    assert.equal(imports.length, 26);
    assert.equal(priceAt(exports!, Date.parse('2026-06-10T10:14:00Z')), 0.08);
    assert.equal(priceAt(exports!, Date.parse('2026-06-10T10:15:00Z')), 0.02);
    assert.equal(priceAt(exports!, Date.parse('2026-06-10T14:45:00Z')), 0.08);
    assert.ok(imports.every((s) => s.price === 0.3));
  });
});

describe('the config check', () => {
  test('a name and currency alone mean no prices', () => {
    const parsed = configSchema.parse({ provider: 'EDF', currency: 'EUR' });
    assert.equal(tariffOf(parsed), null);
  });

  test('overlapping periods are refused, naming both and where they overlap', () => {
    assert.deepEqual(
      problems({
        currency: 'EUR',
        importPeriods: [
          { start: '22:00', end: '07:00', price: 0.2 },
          { start: '06:00', end: '22:00', price: 0.3 },
        ],
      }),
      [
        'importPeriods.1: importPeriods[0] (22:00-07:00, every day) and importPeriods[1] (06:00-22:00, every day) overlap from 06:00 to 07:00 every day: each minute needs exactly one price',
      ],
    );
  });

  test('a gap is refused with the hours, days and months it leaves without a price', () => {
    assert.deepEqual(
      problems({
        currency: 'EUR',
        importPeriods: [
          { start: '00:00', end: '24:00', price: 0.2, days: 'weekdays' },
          { start: '00:00', end: '16:00', price: 0.1, days: 'weekends' },
          { start: '16:00', end: '24:00', price: 0.3, days: 'weekends', months: { from: 11, to: 2 } },
        ],
      }),
      ['importPeriods: no period covers 16:00-24:00 on weekends in Mar-Oct: add a period for it or widen one'],
    );
    assert.deepEqual(
      problems({ currency: 'EUR', exportPeriods: [{ start: '08:00', end: '20:00', price: 0.1 }], importPrice: 0.3 }),
      [
        'exportPeriods: no period covers 00:00-08:00 every day: add a period for it or widen one',
        'exportPeriods: no period covers 20:00-24:00 every day: add a period for it or widen one',
      ],
    );
  });

  test('flat and periods together, an export or standing charge without import, and prices without currency', () => {
    assert.deepEqual(problems({ currency: 'EUR', importPrice: 0.2, importPeriods: hphc.importPeriods }), [
      'importPeriods: give importPrice (flat) or importPeriods (time of use), not both',
    ]);
    assert.deepEqual(problems({ currency: 'EUR', standingCharge: 0.45, exportPrice: 0.05 }), [
      'standingCharge: needs an import price: give importPrice (flat) or importPeriods (time of use) too',
      'exportPrice: needs an import price: give importPrice (flat) or importPeriods (time of use) too',
    ]);
    assert.deepEqual(problems({ importPrice: 0.2 }), [
      'currency: required with prices: the currency of your tariff, e.g. EUR',
    ]);
    assert.match(
      problems({ currency: 'EUR', importPeriods: [{ start: '7:00', end: '24:00', price: 1 }] })[0]!,
      /HH:MM/,
    );
    assert.match(
      problems({ currency: 'EUR', importPeriods: [{ start: '24:00', end: '24:00', price: 1 }] })[0]!,
      /start at 00:00/,
    );
  });
});
