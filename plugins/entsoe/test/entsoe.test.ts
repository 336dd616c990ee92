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
import { type EntsoeMarket, type FakeEntsoe, type Resolution, startFakeEntsoe } from './fake-entsoe.js';

const zone = 'Europe/Berlin';
const QUARTER = 900_000;
const berlin = (iso: string) => DateTime.fromISO(iso, { zone }).toMillis();
const token = 'b7e1f0c2-entsoe-token';
const area = '10Y1001A1001A82H';

/**
 * EUR/MWh. Flat from 01:00 to 05:00 UTC so that A03 leaves those points out; the hourly series
 * carries a price no quarter hour has, so taking it by mistake shows.
 */
function price(start: number, resolution: Resolution): number {
  if (resolution === 'PT60M') return 999.99;
  const step = resolution === 'PT15M' ? QUARTER : 2 * QUARTER;
  const index = (start / step) % (86_400_000 / step);
  const hour = new Date(start).getUTCHours();
  if (hour >= 1 && hour < 5) return 55.5;
  if (hour === 12) return -12.34;
  return Math.round((60 + index * 0.75) * 100) / 100;
}

function market(overrides: Partial<EntsoeMarket> = {}): EntsoeMarket {
  return {
    token,
    area,
    price,
    resolutions: ['PT60M', 'PT15M'],
    publishedThrough: '2026-11-21',
    compress: true,
    ...overrides,
  };
}

const assertSlots = (slots: PriceSlot[], resolution: Resolution, slotMs: number) =>
  assertPriceSlots(slots, { slotMs, price: (start) => price(start, resolution) / 1000 });

describe('ENTSO-E prices', () => {
  let fake: FakeEntsoe;
  const start = (now: number, config: Record<string, unknown> = {}) =>
    startTestHost(
      priceProviderHostOptions({
        plugin,
        now,
        timeZone: zone,
        config: { securityToken: token, area, baseUrl: fake.url, ...config },
      }),
    );

  before(async () => (fake = await startFakeEntsoe(market())));
  after(() => stopTestHosts().then(stopFakeServers));
  beforeEach(() => resetFake(fake, { market: market() }));

  test('declares itself and schedules a regular refresh and one after the auction', async () => {
    const host = await start(berlin('2026-11-20T10:00'));
    assertProviderDeclared(host, {
      provider: 'ENTSO-E',
      currency: 'EUR',
      scheduleType: 'pricing',
      refreshMs: 3_600_000,
      dayAhead: true,
    });
  });

  test('a normal day: the quarter-hour series, forward-filled, of today and tomorrow', async () => {
    const host = await start(berlin('2026-11-20T14:00'));
    await host.runJob('refresh');
    assert.deepEqual(
      fake.requests.map((r) => Object.fromEntries(r.query)),
      [
        ['202611192300', '202611202300'],
        ['202611202300', '202611212300'],
      ].map(([periodStart, periodEnd]) => ({
        securityToken: token,
        documentType: 'A44',
        in_Domain: area,
        out_Domain: area,
        periodStart,
        periodEnd,
      })),
    );
    const slots = host.prices.schedules[0]!.import;
    assert.equal(slots.length, 192);
    assert.equal(slots[0]!.start, berlin('2026-11-20T00:00'));
    assert.equal(slots.at(-1)!.end, berlin('2026-11-22T00:00'));
    assertSlots(slots, 'PT15M', QUARTER);
    // 03:30 UTC lies in the flat stretch that A03 leaves out after its first point.
    assert.equal(slots.find((s) => s.start === Date.parse('2026-11-20T03:30:00Z'))?.price, 0.0555);
    assert.equal(slots.find((s) => s.start === Date.parse('2026-11-20T12:00:00Z'))?.price, -0.01234);
  });

  for (const [resolution, perDay] of [
    ['PT60M', 24],
    ['PT30M', 48],
  ] as const) {
    test(`a zone that publishes ${resolution} only: ${perDay} slots a day`, async () => {
      fake.market = market({ resolutions: [resolution] });
      const host = await start(berlin('2026-11-20T14:00'));
      await host.runJob('refresh');
      const slots = host.prices.schedules[0]!.import;
      assert.equal(slots.length, 2 * perDay);
      assertSlots(slots, resolution, 86_400_000 / perDay);
    });
  }

  test('daylight-saving days: 100 quarter hours on 2026-10-25, 92 on 2026-03-29', async () => {
    const slots = { slotMs: QUARTER, price: (start: number) => price(start, 'PT15M') / 1000 };
    await assertDaylightSavingDays({
      start,
      autumn: {
        prepare: () => (fake.market = market({ publishedThrough: '2026-10-26' })),
        at: berlin('2026-10-25T15:00'),
        end: berlin('2026-10-26T00:00'),
        count: 100,
        slots,
      },
      spring: {
        prepare: () => (fake.market = market({ publishedThrough: '2026-03-30' })),
        at: berlin('2026-03-29T15:00'),
        end: berlin('2026-03-30T00:00'),
        count: 92,
        slots,
      },
    });
    // The autumn day's request asks for its 25 hours, from 22:00 UTC the day before.
    assert.equal(fake.requests[0]!.query.get('periodStart'), '202610242200');
    assert.equal(fake.requests[0]!.query.get('periodEnd'), '202610252300');
  });

  for (const noDataStatus of [200, 400]) {
    test(`tomorrow not yet published (reason 999, HTTP ${noDataStatus}): today is published`, async () => {
      await assertTomorrowFollows({
        start,
        unpublished: () => (fake.market = market({ publishedThrough: '2026-11-20', noDataStatus })),
        at: berlin('2026-11-20T09:00'),
        today: 96,
        log: '2026-11-21 is not published yet (No matching data found',
        published: () => (fake.market = market()),
        auction: berlin('2026-11-20T13:15'),
        both: 192,
      });
    });
  }

  test("no data for today is an error that repeats ENTSO-E's reason", async () => {
    const host = await start(berlin('2026-11-20T09:00'), { area: '10YAT-APG------L' });
    await assert.rejects(
      host.runJob('refresh'),
      /ENTSO-E has no prices for today \(2026-11-20\): No matching data found for Data item Day-ahead Prices/,
    );
    assert.equal(host.prices.schedules.length, 0);
  });

  test('a wrong token: 401 says to check the credentials and never shows the token', async () => {
    const host = await start(berlin('2026-11-20T14:00'), { securityToken: 'not-my-token' });
    const error = await host.runJob('refresh').then(
      () => assert.fail('the job should fail'),
      (e: Error) => e,
    );
    assert.match(
      error.message,
      /ENTSO-E answered HTTP 401 Unauthorized for http:\/\/127\.0\.0\.1:\d+\/api: the service refused the credentials/,
    );
    assert.doesNotMatch(error.message, /not-my-token/);
  });

  const fail = (failure: FakeFailure) => (fake.market = market({ failure }));
  const contract = { provider: 'ENTSO-E', answeredAs: 'html', start, fail } as const;
  const cases = priceProviderContract({ ...contract, at: berlin('2026-11-20T14:00'), requests: () => fake.requests });
  for (const { name, run } of cases) test(name, run);

  test('a malformed answer: the error names the bad element, nothing is published', async () => {
    const host = await start(berlin('2026-11-20T14:00'));
    await assertMalformedAnswers(host, [
      [
        () => (fake.market = market({ resolutions: ['PT15M'], corrupt: 'wrong-type' })),
        /ENTSO-E answer: Publication_MarketDocument\.TimeSeries\[0\]\.Period\[0\]\.Point\[3\]\.price\.amount: expected a decimal number/,
      ],
      [() => (fake.market = market({ corrupt: 'broken-xml' })), /ENTSO-E answer is not valid XML \(line \d+: /],
    ]);
  });

  test('the config needs a token and a valid area code', async () => {
    await assert.rejects(startTestHost({ plugin, config: { area } }), /invalid config for entsoe/);
    await assert.rejects(
      startTestHost({ plugin, config: { securityToken: token, area: 'DE-LU' } }),
      /invalid config for entsoe/,
    );
  });
});
