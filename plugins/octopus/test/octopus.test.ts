import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { PriceSlot } from '@heliograph/plugins-sdk';
import { stopFakeServers } from '@heliograph/plugins-sdk/fake-server';
import { startTestHost, stopTestHosts } from '@heliograph/plugins-sdk/testing';
import { assertPriceSlots, type FakeFailure, priceProviderContract } from '@heliograph/plugins-sdk/testing';
import { priceProviderHostOptions, resetFake } from '@heliograph/plugins-sdk/testing';
import { assertDaylightSavingDays, assertMalformedAnswers } from '@heliograph/plugins-sdk/testing';
import { assertProviderDeclared, assertTomorrowFollows } from '@heliograph/plugins-sdk/testing';
import { DateTime } from 'luxon';
import plugin from '../src/index.js';
import { type FakeOctopus, type OctopusMarket, startFakeOctopus } from './fake-octopus.js';

const zone = 'Europe/London';
const HALF_HOUR = 1_800_000;
const london = (iso: string) => DateTime.fromISO(iso, { zone }).toMillis();
const IMPORT = 'AGILE-24-10-01';
const EXPORT = 'AGILE-OUTGOING-19-05-13';

/** p/kWh with four decimals, with a negative-price half hour in the small hours. */
const agile = (start: number) => {
  const halfHour = (start / HALF_HOUR) % 48;
  return halfHour === 6 ? -2.1 : Math.round((12.6 + halfHour * 0.4173) * 10_000) / 10_000;
};
const outgoing = (start: number) => Math.round((4.15 + ((start / HALF_HOUR) % 48) * 0.2) * 100) / 100;

function market(overrides: Partial<OctopusMarket> = {}): OctopusMarket {
  return {
    region: 'C',
    prices: { [IMPORT]: agile, [EXPORT]: outgoing },
    vat: { [IMPORT]: 0.05, [EXPORT]: 0 },
    publishedUntil: london('2026-11-21T23:00'),
    maxPageSize: 1500,
    ...overrides,
  };
}

/** Half hours at `pence(start)` p/kWh. */
const assertHalfHours = (slots: PriceSlot[], pence: (start: number) => number) =>
  assertPriceSlots(slots, { slotMs: HALF_HOUR, price: (start) => pence(start) / 100 });

describe('Octopus Agile prices', () => {
  let fake: FakeOctopus;
  const start = (now: number, config: Record<string, unknown> = {}) =>
    startTestHost(
      priceProviderHostOptions({ plugin, now, timeZone: zone, config: { region: 'C', baseUrl: fake.url, ...config } }),
    );

  before(async () => (fake = await startFakeOctopus(market())));
  after(() => stopTestHosts().then(stopFakeServers));
  beforeEach(() => resetFake(fake, { market: market() }));

  test('declares import and export pricing and schedules a refresh after the 16:00 publication', async () => {
    const host = await start(london('2026-11-20T10:00'));
    assertProviderDeclared(host, {
      provider: 'Octopus Energy',
      currency: 'GBP',
      scheduleType: 'import_export_pricing',
      refreshMs: 3_600_000,
      dayAhead: { from: '16:00' },
    });
  });

  test('a normal day: import and export half hours in GBP, oldest first', async () => {
    const host = await start(london('2026-11-20T17:00'));
    await host.runJob('refresh');

    assert.deepEqual(
      fake.requests.map((r) => [
        r.path,
        r.query.get('period_from'),
        r.query.get('period_to'),
        r.query.get('page_size'),
      ]),
      [
        [
          `/v1/products/${IMPORT}/electricity-tariffs/E-1R-${IMPORT}-C/standard-unit-rates/`,
          '2026-11-20T00:00:00Z',
          '2026-11-22T00:00:00Z',
          '1500',
        ],
        [
          `/v1/products/${EXPORT}/electricity-tariffs/E-1R-${EXPORT}-C/standard-unit-rates/`,
          '2026-11-20T00:00:00Z',
          '2026-11-22T00:00:00Z',
          '1500',
        ],
      ],
    );
    const { import: imported, export: exported } = host.prices.schedules[0]!;
    // Published up to 23:00 tomorrow: 48 half hours today, 46 tomorrow.
    assert.equal(imported.length, 94);
    assert.equal(imported[0]!.start, london('2026-11-20T00:00'));
    assertHalfHours(imported, agile);
    assert.equal(imported[6]!.price, -0.021);
    assert.equal(exported?.length, 94);
    assertHalfHours(exported, outgoing);
  });

  test('paged answers: every `next` page is followed', async () => {
    fake.market = market({ maxPageSize: 25 });
    const host = await start(london('2026-11-20T17:00'));
    await host.runJob('refresh');
    const importPages = fake.requests.filter((r) => r.path.includes(`/${IMPORT}/`));
    assert.deepEqual(
      importPages.map((r) => r.query.get('page')),
      [null, '2', '3', '4'],
    );
    const { import: imported } = host.prices.schedules[0]!;
    assert.equal(imported.length, 94);
    assertHalfHours(imported, agile);
  });

  test('daylight-saving days: 50 half hours on 2026-10-25, 46 on 2026-03-29', async () => {
    await assertDaylightSavingDays({
      start,
      autumn: {
        prepare: () => (fake.market = market({ publishedUntil: london('2026-10-27T00:00') })),
        at: london('2026-10-25T17:00'),
        end: london('2026-10-26T00:00'),
        count: 50,
        slots: { slotMs: HALF_HOUR, price: (start) => agile(start) / 100 },
      },
      spring: {
        prepare: () => (fake.market = market({ publishedUntil: london('2026-03-31T00:00') })),
        at: london('2026-03-29T17:00'),
        end: london('2026-03-30T00:00'),
        count: 46,
        series: 'export',
        slots: { slotMs: HALF_HOUR, price: (start) => outgoing(start) / 100 },
      },
    });
    // The autumn day starts at midnight BST, 23:00 UTC the day before.
    assert.equal(fake.requests[0]!.query.get('period_from'), '2026-10-24T23:00:00Z');
  });

  test('tomorrow not yet published: today is published, tomorrow follows after 16:00', async () => {
    await assertTomorrowFollows({
      start,
      unpublished: () => (fake.market = market({ publishedUntil: london('2026-11-20T23:00') })),
      at: london('2026-11-20T11:00'),
      today: 46,
      log: '2026-11-21 is not published yet',
      published: () => (fake.market = market()),
      auction: london('2026-11-20T16:10'),
      both: 94,
    });
  });

  const fail = (failure: FakeFailure) => (fake.market = market({ failure }));
  const contract = { provider: `Octopus Energy (E-1R-${IMPORT}-C)`, answeredAs: 'text', start, fail } as const;
  const cases = priceProviderContract({ ...contract, at: london('2026-11-20T17:00'), requests: () => fake.requests });
  for (const { name, run } of cases) test(name, run);

  test('a failing export tariff: the import prices are published, the export prices stay, the job fails', async () => {
    const host = await start(london('2026-11-20T17:00'));
    fake.market = market({ failure: { product: EXPORT, status: 503, contentType: 'text/plain', body: 'down' } });
    await assert.rejects(
      host.runJob('refresh'),
      /Octopus Energy \(E-1R-AGILE-OUTGOING-19-05-13-C\) answered HTTP 503 .*; the import prices are published and the last export prices stay/,
    );
    assert.equal(host.prices.schedules.length, 1);
    const { import: imported, export: exported } = host.prices.schedules[0]!;
    assert.equal(imported.length, 94);
    assertHalfHours(imported, agile);
    assert.equal(exported, undefined, 'no export key: the export prices already stored stay');
  });

  test('without an export tariff: import prices only, declared as plain pricing', async () => {
    const host = await start(london('2026-11-20T17:00'), { exportProduct: null });
    assert.deepEqual(host.prices.provider, { provider: 'Octopus Energy', currency: 'GBP', scheduleType: 'pricing' });
    await host.runJob('refresh');
    assert.deepEqual(
      fake.requests.map((r) => r.path),
      [`/v1/products/${IMPORT}/electricity-tariffs/E-1R-${IMPORT}-C/standard-unit-rates/`],
    );
    const { import: imported, export: exported } = host.prices.schedules[0]!;
    assert.equal(imported.length, 94);
    assert.equal(exported, undefined);
    assert.ok(host.logs.some((line) => line.includes('published 94 import slots up to 2026-11-21')));
  });

  test('a wrong region or product: the 404 says to check the settings', async () => {
    const host = await start(london('2026-11-20T17:00'), { importProduct: 'AGILE-FLEX-22-11-25' });
    await assert.rejects(
      host.runJob('refresh'),
      /answered HTTP 404 Not Found .*check baseUrl and the ids in the plugin settings/,
    );
  });

  test('a malformed answer: the error names the tariff and the bad field', async () => {
    const host = await start(london('2026-11-20T17:00'));
    await assertMalformedAnswers(host, [
      [
        () => (fake.market = market({ corrupt: 'wrong-type' })),
        /Octopus answer for E-1R-AGILE-24-10-01-C: results\[3\]\.value_inc_vat: expected number, received string/,
      ],
      [() => (fake.market = market({ corrupt: 'not-json' })), /Octopus answer for E-1R-AGILE-24-10-01-C is not JSON/],
    ]);
  });

  test('the config needs a region letter', async () => {
    await assert.rejects(startTestHost({ plugin, config: {} }), /invalid config for octopus/);
    await assert.rejects(startTestHost({ plugin, config: { region: 'I' } }), /invalid config for octopus/);
  });
});
