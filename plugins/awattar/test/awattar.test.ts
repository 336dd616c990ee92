import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { stopFakeServers } from '@heliograph/plugins-sdk/fake-server';
import { startTestHost, stopTestHosts } from '@heliograph/plugins-sdk/testing';
import { assertPriceSlots, type FakeFailure, priceProviderContract } from '@heliograph/plugins-sdk/testing';
import { priceProviderHostOptions, resetFake } from '@heliograph/plugins-sdk/testing';
import { assertDaylightSavingDays, assertMalformedAnswers } from '@heliograph/plugins-sdk/testing';
import { assertProviderDeclared, assertTomorrowFollows } from '@heliograph/plugins-sdk/testing';
import { DateTime } from 'luxon';
import plugin from '../src/index.js';
import { type AwattarMarket, type FakeAwattar, startFakeAwattar } from './fake-awattar.js';

const zone = 'Europe/Berlin';
const HOUR = 3_600_000;
const berlin = (iso: string) => DateTime.fromISO(iso, { zone }).toMillis();

/** A price per hour of day with a negative dip at noon, in EUR/MWh with two decimals. */
function marketPrice(start: number): number {
  const hour = new Date(start).getUTCHours();
  const minute = new Date(start).getUTCMinutes();
  return Math.round((85.4 + hour * 6.37 + minute * 0.11 - (hour === 11 ? 120 : 0)) * 100) / 100;
}

function market(overrides: Partial<AwattarMarket> = {}): AwattarMarket {
  return { price: marketPrice, slotMs: HOUR, publishedUntil: berlin('2026-11-22T00:00'), ...overrides };
}

describe('aWATTar prices', () => {
  let fake: FakeAwattar;
  const start = (now: number, config: Record<string, unknown> = {}) =>
    startTestHost(priceProviderHostOptions({ plugin, now, timeZone: zone, config: { baseUrl: fake.url, ...config } }));

  before(async () => (fake = await startFakeAwattar(market())));
  after(() => stopTestHosts().then(stopFakeServers));
  beforeEach(() => resetFake(fake, { market: market() }));

  test('declares itself and schedules a regular refresh and one after the day-ahead auction', async () => {
    const host = await start(berlin('2026-11-20T10:00'));
    assertProviderDeclared(host, {
      provider: 'aWATTar',
      currency: 'EUR',
      scheduleType: 'pricing',
      refreshMs: HOUR,
      dayAhead: { from: '13:00', to: '15:00' },
    });
  });

  test('a normal day: today and tomorrow as hourly EUR/kWh slots', async () => {
    const host = await start(berlin('2026-11-20T14:00'));
    await host.runJob('refresh');

    const [request] = fake.requests;
    assert.equal(request?.path, '/v1/marketdata');
    assert.equal(request?.query.get('start'), String(berlin('2026-11-20T00:00')));
    assert.equal(request?.query.get('end'), String(berlin('2026-11-22T00:00')));

    assert.equal(host.prices.schedules.length, 1);
    const slots = host.prices.schedules[0]!.import;
    assertPriceSlots(slots, {
      slotMs: HOUR,
      price: (start) => marketPrice(start) / 1000,
      count: 48,
      from: berlin('2026-11-20T00:00'),
      to: berlin('2026-11-22T00:00'),
    });
    // 11:00 UTC is noon in Berlin: 85.4 + 11 * 6.37 - 120 = 35.47 EUR/MWh.
    assert.equal(slots.find((s) => s.start === berlin('2026-11-20T12:00'))?.price, 0.03547);
    assert.equal(host.prices.schedules[0]!.export, undefined);
  });

  test('the Austrian market and quarter-hour data: slot length comes from the answer', async () => {
    fake.market = market({ slotMs: HOUR / 4 });
    const host = await start(berlin('2026-11-20T14:00'), { country: 'at' });
    await host.runJob('refresh');
    assertPriceSlots(host.prices.schedules[0]!.import, {
      slotMs: HOUR / 4,
      price: (start) => marketPrice(start) / 1000,
      count: 192,
    });
  });

  test('daylight-saving days: 25 hours on 2026-10-25, 23 hours on 2026-03-29', async () => {
    await assertDaylightSavingDays({
      start,
      autumn: {
        prepare: () => (fake.market = market({ publishedUntil: berlin('2026-10-27T00:00') })),
        at: berlin('2026-10-25T15:00'),
        end: berlin('2026-10-26T00:00'),
        count: 25,
        slots: { slotMs: HOUR, count: 25 + 24, from: berlin('2026-10-25T00:00') },
      },
      spring: {
        prepare: () => (fake.market = market({ slotMs: HOUR / 4, publishedUntil: berlin('2026-03-31T00:00') })),
        at: berlin('2026-03-29T15:00'),
        end: berlin('2026-03-30T00:00'),
        count: 92,
      },
    });
  });

  test('tomorrow not yet published: today is published, tomorrow follows after the auction', async () => {
    await assertTomorrowFollows({
      start,
      unpublished: () => (fake.market = market({ publishedUntil: berlin('2026-11-21T00:00') })),
      at: berlin('2026-11-20T09:00'),
      today: 24,
      log: '2026-11-21 is not published yet',
      published: () => (fake.market = market({ publishedUntil: berlin('2026-11-22T00:00') })),
      auction: berlin('2026-11-20T13:05'),
      both: 48,
    });
  });

  const fail = (failure: FakeFailure) => (fake.market = market({ failure }));
  const contract = { provider: 'aWATTar', answeredAs: 'text', start, fail } as const;
  const cases = priceProviderContract({ ...contract, at: berlin('2026-11-20T14:00'), requests: () => fake.requests });
  for (const { name, run } of cases) test(name, run);

  test('a malformed answer: the error names the bad field, nothing is published', async () => {
    const host = await start(berlin('2026-11-20T14:00'));
    await assertMalformedAnswers(host, [
      [
        () => (fake.market = market({ corrupt: 'wrong-type' })),
        /aWATTar answer: data\[3\]\.marketprice: expected number, received string/,
      ],
      [() => (fake.market = market({ corrupt: 'not-json' })), /aWATTar answer is not JSON/],
    ]);

    fake.market = market();
    await host.runJob('refresh');
    assert.equal(host.prices.schedules.length, 1);
  });

  test('an unreachable service: the error says so and names the address', async () => {
    const host = await start(berlin('2026-11-20T14:00'), { baseUrl: 'http://127.0.0.1:9' });
    await assert.rejects(
      host.runJob('refresh'),
      /could not reach aWATTar at http:\/\/127\.0\.0\.1:9\/v1\/marketdata \(ECONNREFUSED\)/,
    );
    assert.equal(host.prices.schedules.length, 0);
  });

  test('the config refuses an unknown country, and refreshes that would use up the daily quota', async () => {
    await assert.rejects(startTestHost({ plugin, config: { country: 'ch' } }), /invalid config for awattar/);
    await assert.rejects(startTestHost({ plugin, config: { refreshMinutes: 15 } }), /invalid config for awattar/);
  });
});
