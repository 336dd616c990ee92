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
import { type FakeTibber, startFakeTibber, type TibberAccount } from './fake-tibber.js';

const zone = 'Europe/Berlin';
const QUARTER = 900_000;
const berlin = (iso: string) => DateTime.fromISO(iso, { zone }).toMillis();
const token = 'tibber-token-5K4MVS';
/** The GraphQL query text of a request body the plugin sent. */
const queryOf = (body: string) => (JSON.parse(body) as { query: string }).query;

/** Per-kWh totals with four decimals that differ by slot and by home. */
function total(start: number, homeId: string): number {
  const minutes = (start / 60_000) % 1440;
  return Math.round((0.2215 + minutes * 0.00013 + (homeId === 'home-b' ? 0.05 : 0)) * 10_000) / 10_000;
}

function account(now: number, overrides: Partial<TibberAccount> = {}): TibberAccount {
  return {
    token,
    zone,
    now,
    currency: 'EUR',
    total,
    tomorrowPublished: true,
    homes: [{ id: 'home-a', subscribed: true }],
    ...overrides,
  };
}

describe('Tibber prices', () => {
  let fake: FakeTibber;
  const start = (now: number, config: Record<string, unknown> = {}, timeZone = zone) => {
    fake.account = { ...fake.account, now };
    return startTestHost(
      priceProviderHostOptions({ plugin, now, timeZone, config: { token, baseUrl: fake.url, ...config } }),
    );
  };

  before(async () => (fake = await startFakeTibber(account(0))));
  after(() => stopTestHosts().then(stopFakeServers));
  beforeEach(() => resetFake(fake, { account: account(0) }));

  test('declares itself and schedules a regular refresh and one after the day-ahead auction', async () => {
    const host = await start(berlin('2026-11-20T10:00'), { currency: 'SEK' });
    assertProviderDeclared(host, {
      provider: 'Tibber',
      currency: 'SEK',
      scheduleType: 'pricing',
      refreshMs: 3_600_000,
      dayAhead: true,
    });
  });

  test('a normal day: 96 quarter-hours today and tomorrow at the total price', async () => {
    const host = await start(berlin('2026-11-20T14:00'));
    await host.runJob('refresh');

    const [request] = fake.requests;
    assert.equal(request?.method, 'POST');
    assert.equal(request?.headers.authorization, `Bearer ${token}`);
    assert.match(queryOf(request.body), /priceInfo\(resolution: QUARTER_HOURLY\)/);

    assertPriceSlots(host.prices.schedules[0]!.import, {
      slotMs: QUARTER,
      price: (start) => total(start, 'home-a'),
      count: 192,
      from: berlin('2026-11-20T00:00'),
      to: berlin('2026-11-22T00:00'),
    });
  });

  test('hourly resolution when configured: the slot length follows the answer', async () => {
    const host = await start(berlin('2026-11-20T14:00'), { resolution: 'HOURLY' });
    await host.runJob('refresh');
    assert.match(queryOf(fake.requests[0]!.body), /priceInfo\(resolution: HOURLY\)/);
    assertPriceSlots(host.prices.schedules[0]!.import, { slotMs: 3_600_000, count: 48 });
  });

  test('daylight-saving days: 100 quarter-hours on 2026-10-25, 92 on 2026-03-29', async () => {
    await assertDaylightSavingDays({
      start,
      autumn: {
        at: berlin('2026-10-25T15:00'),
        end: berlin('2026-10-26T00:00'),
        count: 100,
        slots: { slotMs: QUARTER, count: 100 + 96 },
      },
      spring: { at: berlin('2026-03-29T15:00'), end: berlin('2026-03-30T00:00'), count: 92 },
    });
  });

  test('tomorrow not yet published: today is published, tomorrow follows after the auction', async () => {
    await assertTomorrowFollows({
      start,
      unpublished: () => (fake.account = account(0, { tomorrowPublished: false })),
      at: berlin('2026-11-20T09:00'),
      today: 96,
      log: 'tomorrow is not published yet',
      published: () => (fake.account = account(berlin('2026-11-20T13:10'))),
      auction: berlin('2026-11-20T13:10'),
      both: 192,
    });
  });

  test("a site in another time zone than the home: the slots are cut to the site's today and tomorrow", async () => {
    const helsinki = (iso: string) => DateTime.fromISO(iso, { zone: 'Europe/Helsinki' }).toMillis();
    const host = await start(helsinki('2026-11-20T14:00'), {}, 'Europe/Helsinki');
    await host.runJob('refresh');
    const slots = host.prices.schedules[0]!.import;
    // The home's today starts at 01:00 Helsinki time; its tomorrow ends at 01:00 on the day
    // after the site's tomorrow, so that last hour is cut.
    assert.equal(slots[0]!.start, helsinki('2026-11-20T01:00'));
    assert.equal(slots.at(-1)!.end, helsinki('2026-11-22T00:00'));
    assert.equal(slots.length, 92 + 96);
    assert.ok(host.logs.some((line) => line.includes('published 92 Tibber slots for today and 96 for tomorrow')));
  });

  test('several homes: the first with a subscription, or the configured one', async () => {
    const homes = [
      { id: 'home-old', subscribed: false },
      { id: 'home-a', subscribed: true },
      { id: 'home-b', subscribed: true },
    ];
    fake.account = account(0, { homes });
    const first = await start(berlin('2026-11-20T14:00'));
    await first.runJob('refresh');
    assert.equal(first.prices.schedules[0]!.import[5]!.price, total(berlin('2026-11-20T01:15'), 'home-a'));

    const chosen = await start(berlin('2026-11-20T14:00'), { homeId: 'home-b' });
    await chosen.runJob('refresh');
    assert.equal(chosen.prices.schedules[0]!.import[5]!.price, total(berlin('2026-11-20T01:15'), 'home-b'));

    const unknown = await start(berlin('2026-11-20T14:00'), { homeId: 'home-x' });
    await assert.rejects(unknown.runJob('refresh'), /no home with id home-x; its homes are: home-old, home-a, home-b/);
  });

  test('a currency that differs from the setting is refused with the fix', async () => {
    fake.account = account(0, { currency: 'NOK' });
    const host = await start(berlin('2026-11-20T14:00'));
    await assert.rejects(
      host.runJob('refresh'),
      /Tibber prices are in NOK but the currency setting says EUR: set currency to NOK/,
    );
    assert.equal(host.prices.schedules.length, 0);
  });

  test("a wrong token: the error repeats Tibber's reason and says to check the token", async () => {
    const host = await start(berlin('2026-11-20T14:00'), { token: 'expired' });
    await assert.rejects(
      host.runJob('refresh'),
      /Tibber answered HTTP 400 Bad Request .*"Context creation failed: invalid token"/,
    );
    assert.equal(host.prices.schedules.length, 0);
  });

  const fail = (failure: FakeFailure) => (fake.account = { ...fake.account, failure });
  const contract = { provider: 'Tibber', answeredAs: 'text', start, fail } as const;
  const cases = priceProviderContract({ ...contract, at: berlin('2026-11-20T14:00'), requests: () => fake.requests });
  for (const { name, run } of cases) test(name, run);

  test('a malformed answer or a GraphQL error: a clear error, nothing published', async () => {
    const host = await start(berlin('2026-11-20T14:00'));
    await assertMalformedAnswers(host, [
      [
        () => (fake.account = { ...fake.account, corrupt: 'wrong-type' }),
        /Tibber answer: data\.viewer\.homes\[0\]\.currentSubscription\.priceInfo\.today\[3\]\.total: expected number, received string/,
      ],
      [
        () => (fake.account = { ...fake.account, corrupt: 'graphql-error' }),
        /Tibber answered with an error: "An internal server error occurred"/,
      ],
      [() => (fake.account = { ...fake.account, corrupt: 'not-json' }), /Tibber answer is not JSON/],
    ]);
  });

  test('the config needs a token', async () => {
    await assert.rejects(startTestHost({ plugin, config: {} }), /invalid config for tibber/);
  });
});
