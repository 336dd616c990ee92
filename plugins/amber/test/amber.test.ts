import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { PriceSlot } from '@heliograph/plugins-sdk';
import { stopFakeServers } from '@heliograph/plugins-sdk/fake-server';
import { startTestHost, stopTestHosts } from '@heliograph/plugins-sdk/testing';
import { assertPriceSlots, type FakeFailure, priceProviderContract } from '@heliograph/plugins-sdk/testing';
import { priceProviderHostOptions, resetFake } from '@heliograph/plugins-sdk/testing';
import {
  assertDaylightSavingDays,
  assertMalformedAnswers,
  assertProviderDeclared,
} from '@heliograph/plugins-sdk/testing';
import { DateTime } from 'luxon';
import plugin from '../src/index.js';
import { type AmberSite, type Channel, type FakeAmber, startFakeAmber } from './fake-amber.js';

const zone = 'Australia/Sydney';
const HALF_HOUR = 1_800_000;
const sydney = (iso: string) => DateTime.fromISO(iso, { zone }).toMillis();
const siteId = '01F5A5CRKMZ5BCX9P1S4V990AM';
const apiKey = 'psk_2d5e2a9f0c1b';

/** c/kWh: general 18.5-42 with two decimals; feed-in mostly paid (negative), but costs at 02:00 UTC. */
function perKwh(start: number, channel: Channel): number {
  const step = (start / 300_000) % 288;
  if (channel === 'general') return Math.round((18.5 + step * 0.0817) * 100) / 100;
  if (channel === 'feedIn')
    return new Date(start).getUTCHours() === 2 ? 1.5 : Math.round(-(3.1 + step * 0.021) * 100) / 100;
  return 12.34;
}

function amberSite(now: number, overrides: Partial<AmberSite> = {}): AmberSite {
  return {
    siteId,
    apiKey,
    now,
    channels: ['general', 'feedIn', 'controlledLoad'],
    perKwh,
    forecastUntil: Number.MAX_SAFE_INTEGER,
    ...overrides,
  };
}

const assertSlots = (slots: PriceSlot[], price: (start: number) => number, slotMs = HALF_HOUR) =>
  assertPriceSlots(slots, { slotMs, price });

describe('Amber Electric prices', () => {
  let fake: FakeAmber;
  const start = (now: number, config: Record<string, unknown> = {}) => {
    fake.site = { ...fake.site, now };
    return startTestHost(
      priceProviderHostOptions({
        plugin,
        now,
        timeZone: zone,
        config: { siteId, apiKey, baseUrl: fake.url, ...config },
      }),
    );
  };

  before(async () => (fake = await startFakeAmber(amberSite(0))));
  after(() => stopTestHosts().then(stopFakeServers));
  beforeEach(() => resetFake(fake, { site: amberSite(0) }));

  test('declares import and export pricing in AUD and refreshes every 5 minutes', async () => {
    const host = await start(sydney('2026-11-20T10:00'));
    assertProviderDeclared(host, {
      provider: 'Amber Electric',
      currency: 'AUD',
      scheduleType: 'import_export_pricing',
      refreshMs: 300_000,
    });
  });

  test('a normal day: general and feed-in half hours from local midnight to the end of tomorrow', async () => {
    const host = await start(sydney('2026-11-20T14:10'));
    await host.runJob('refresh');
    const [request] = fake.requests;
    assert.equal(request?.path, `/v1/sites/${siteId}/prices/current`);
    assert.equal(request?.headers.authorization, `Bearer ${apiKey}`);
    // 28 half hours since midnight, the current one, and 67 more to the end of tomorrow.
    assert.deepEqual(Object.fromEntries(request.query), { next: '67', previous: '28', resolution: '30' });

    const { import: imported, export: exported } = host.prices.schedules[0]!;
    assert.equal(imported.length, 96);
    assert.equal(imported[0]!.start, sydney('2026-11-20T00:00'));
    assert.equal(imported.at(-1)!.end, sydney('2026-11-22T00:00'));
    assertSlots(imported, (start) => perKwh(start, 'general') / 100);
    assert.equal(exported?.length, 96);
    assertSlots(exported, (start) => -perKwh(start, 'feedIn') / 100);
  });

  test('feed-in sign: a negative perKwh (paid) is a positive export price, a positive one negative', async () => {
    const host = await start(sydney('2026-11-20T14:10'));
    await host.runJob('refresh');
    const exported = host.prices.schedules[0]!.export!;
    const paid = exported.find((s) => s.start === Date.parse('2026-11-20T05:00:00Z'));
    const costs = exported.find((s) => s.start === Date.parse('2026-11-20T02:00:00Z'));
    assert.equal(perKwh(Date.parse('2026-11-20T05:00:00Z'), 'feedIn'), -4.36);
    assert.equal(paid?.price, 0.0436);
    assert.equal(costs?.price, -0.015);
  });

  test('5-minute resolution: 288 slots a day, 5 minutes long', async () => {
    const host = await start(sydney('2026-11-20T14:12'), { resolution: 5 });
    await host.runJob('refresh');
    assert.deepEqual(Object.fromEntries(fake.requests[0]!.query), { next: '405', previous: '170', resolution: '5' });
    const { import: imported } = host.prices.schedules[0]!;
    assert.equal(imported.length, 576);
    assertSlots(imported, (start) => perKwh(start, 'general') / 100, 300_000);
  });

  test('daylight-saving days in Sydney: 50 half hours on 2026-04-05, 46 on 2026-10-04', async () => {
    await assertDaylightSavingDays({
      start,
      autumn: {
        at: sydney('2026-04-05T15:00'),
        end: sydney('2026-04-06T00:00'),
        count: 50,
        slots: {
          slotMs: HALF_HOUR,
          price: (start) => perKwh(start, 'general') / 100,
          from: sydney('2026-04-05T00:00'),
        },
      },
      spring: {
        at: sydney('2026-10-04T15:00'),
        end: sydney('2026-10-05T00:00'),
        count: 46,
        series: 'export',
        slots: { slotMs: HALF_HOUR, price: (start) => -perKwh(start, 'feedIn') / 100 },
      },
    });
  });

  test('a forecast that does not reach tomorrow yet: what there is gets published', async () => {
    fake.site = amberSite(0, { forecastUntil: sydney('2026-11-21T04:00') });
    const host = await start(sydney('2026-11-20T14:10'));
    await host.runJob('refresh');
    assert.equal(host.prices.schedules[0]!.import.length, 48 + 8);
    assert.ok(host.logs.some((line) => line.includes('the forecast reaches 2026-11-20T17:00:00.000Z')));
  });

  test("a wrong API key: Amber's message and a hint to check the credentials", async () => {
    const host = await start(sydney('2026-11-20T14:10'), { apiKey: 'psk_revoked' });
    await assert.rejects(
      host.runJob('refresh'),
      /Amber answered HTTP 401 Unauthorized .*\("Unauthorized"\): the service refused the credentials/,
    );
  });

  const fail = (failure: FakeFailure) => (fake.site = { ...fake.site, failure });
  const contract = { provider: 'Amber', answeredAs: 'json', start, fail, jobs: ['refresh'] } as const;
  const cases = priceProviderContract({ ...contract, at: sydney('2026-11-20T14:10'), requests: () => fake.requests });
  for (const { name, run } of cases) test(name, run);

  test('a malformed answer: the error names the bad field, nothing is published', async () => {
    const host = await start(sydney('2026-11-20T14:10'));
    await assertMalformedAnswers(host, [
      [
        () => (fake.site = { ...fake.site, corrupt: 'wrong-type' }),
        /Amber answer: \[3\]\.perKwh: expected number, received string/,
      ],
      [() => (fake.site = { ...fake.site, corrupt: 'not-json' }), /Amber answer is not JSON/],
    ]);
  });

  test('the config needs a site id and an API key', async () => {
    await assert.rejects(startTestHost({ plugin, config: { siteId } }), /invalid config for amber/);
  });
});
