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
import { type FakeNordPool, type NordPoolMarket, startFakeNordPool } from './fake-nordpool.js';

const zone = 'Europe/Stockholm';
const QUARTER = 900_000;
const local = (iso: string, z = zone) => DateTime.fromISO(iso, { zone: z }).toMillis();

/** Per MWh with two decimals; differs by area and currency, negative at 03:00 UTC. */
function price(start: number, area: string, currency: string): number {
  const quarter = (start / QUARTER) % 96;
  const base = quarter === 12 ? -3.27 : 41.3 + quarter * 1.17 + (area === 'SE4' ? 20 : 0);
  return Math.round(base * (currency === 'SEK' ? 11.0755 : 1) * 100) / 100;
}

function market(overrides: Partial<NordPoolMarket> = {}): NordPoolMarket {
  return { price, slotMinutes: 15, publishedThrough: '2026-11-21', ...overrides };
}

const assertSlots = (slots: PriceSlot[], area: string, currency: string) =>
  assertPriceSlots(slots, { slotMs: QUARTER, price: (start) => price(start, area, currency) / 1000 });

describe('Nord Pool prices', () => {
  let fake: FakeNordPool;
  const start = (now: number, config: Record<string, unknown> = {}, timeZone = zone) =>
    startTestHost(
      priceProviderHostOptions({
        plugin,
        now,
        timeZone,
        config: { deliveryArea: 'SE3', baseUrl: fake.url, ...config },
      }),
    );

  before(async () => (fake = await startFakeNordPool(market())));
  after(() => stopTestHosts().then(stopFakeServers));
  beforeEach(() => resetFake(fake, { market: market() }));

  test('declares itself in the configured currency and schedules the day-ahead refresh', async () => {
    const host = await start(local('2026-11-20T10:00'), { currency: 'SEK' });
    assertProviderDeclared(host, {
      provider: 'Nord Pool',
      currency: 'SEK',
      scheduleType: 'pricing',
      refreshMs: 3_600_000,
      dayAhead: true,
    });
  });

  test('a normal day: 96 quarter hours today and tomorrow, per kWh in the asked currency', async () => {
    const host = await start(local('2026-11-20T14:00'), { currency: 'SEK', deliveryArea: 'SE4' });
    await host.runJob('refresh');
    assert.deepEqual(
      fake.requests.map((r) => Object.fromEntries(r.query)),
      ['2026-11-20', '2026-11-21'].map((date) => ({ date, market: 'DayAhead', deliveryArea: 'SE4', currency: 'SEK' })),
    );
    const slots = host.prices.schedules[0]!.import;
    assert.equal(slots.length, 192);
    assert.equal(slots[0]!.start, local('2026-11-20T00:00'));
    assert.equal(slots.at(-1)!.end, local('2026-11-22T00:00'));
    assertSlots(slots, 'SE4', 'SEK');
    assert.equal(slots.find((s) => s.start === Date.parse('2026-11-20T03:00:00Z'))?.price, -0.03622);
  });

  test('hourly answers (before 2025-10-01) give hour slots', async () => {
    fake.market = market({ slotMinutes: 60 });
    const host = await start(local('2026-11-20T14:00'));
    await host.runJob('refresh');
    const slots = host.prices.schedules[0]!.import;
    assert.equal(slots.length, 48);
    assert.ok(slots.every((s) => s.end - s.start === 3_600_000));
  });

  test('daylight-saving days: 100 quarter hours on 2026-10-25, 92 on 2026-03-29', async () => {
    const slots = { slotMs: QUARTER, price: (start: number) => price(start, 'SE3', 'EUR') / 1000 };
    await assertDaylightSavingDays({
      start,
      autumn: {
        prepare: () => (fake.market = market({ publishedThrough: '2026-10-26' })),
        at: local('2026-10-25T15:00'),
        end: local('2026-10-26T00:00'),
        count: 100,
        slots: { ...slots, count: 196 },
      },
      spring: {
        prepare: () => (fake.market = market({ publishedThrough: '2026-03-30' })),
        at: local('2026-03-29T15:00'),
        end: local('2026-03-30T00:00'),
        count: 92,
        slots,
      },
    });
  });

  test('tomorrow not yet published (204): today is published, tomorrow follows after the auction', async () => {
    await assertTomorrowFollows({
      start,
      unpublished: () => (fake.market = market({ publishedThrough: '2026-11-20' })),
      at: local('2026-11-20T09:00'),
      today: 96,
      log: 'delivery day 2026-11-21 is not published yet',
      published: () => (fake.market = market()),
      auction: local('2026-11-20T13:00'),
      both: 192,
    });
  });

  test('a 204 for a delivery day that has begun is an error', async () => {
    fake.market = market({ publishedThrough: '2026-11-19' });
    const host = await start(local('2026-11-20T09:00'));
    await assert.rejects(host.runJob('refresh'), /Nord Pool has no SE3 prices for 2026-11-20, a day that has begun/);
    assert.equal(host.prices.schedules.length, 0);
  });

  test('a site east of CET: three CET days are asked and cut to the local days', async () => {
    const helsinki = (iso: string) => local(iso, 'Europe/Helsinki');
    const host = await start(helsinki('2026-11-20T14:00'), { deliveryArea: 'FI' }, 'Europe/Helsinki');
    await host.runJob('refresh');
    assert.deepEqual(
      fake.requests.map((r) => r.query.get('date')),
      ['2026-11-19', '2026-11-20', '2026-11-21'],
    );
    const slots = host.prices.schedules[0]!.import;
    assert.equal(slots[0]!.start, helsinki('2026-11-20T00:00'));
    // The local day starts an hour before CET's, in the CET day before; CET's 2026-11-21 ends
    // at 01:00 Helsinki time, so its last hour lies beyond the local tomorrow and is cut.
    assert.equal(slots.at(-1)!.end, helsinki('2026-11-22T00:00'));
    assert.equal(slots.length, 192);
    assertSlots(slots, 'FI', 'EUR');
  });

  const fail = (failure: FakeFailure) => (fake.market = market({ failure }));
  const contract = { provider: 'Nord Pool', answeredAs: 'text', start, fail } as const;
  const cases = priceProviderContract({ ...contract, at: local('2026-11-20T14:00'), requests: () => fake.requests });
  for (const { name, run } of cases) test(name, run);

  test('a malformed answer: the error names the entry and the missing area', async () => {
    const host = await start(local('2026-11-20T14:00'));
    await assertMalformedAnswers(host, [
      [
        () => (fake.market = market({ corrupt: 'missing-area' })),
        /Nord Pool answer: multiAreaEntries\[5\]\.entryPerArea\.SE3: expected number, received undefined/,
      ],
      [() => (fake.market = market({ corrupt: 'not-json' })), /Nord Pool answer is not JSON/],
    ]);
  });

  test('the config needs a delivery area', async () => {
    await assert.rejects(startTestHost({ plugin, config: {} }), /invalid config for nordpool/);
  });
});
