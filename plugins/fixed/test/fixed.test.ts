import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestHost } from '@heliograph/plugins-sdk/testing';
import type { PriceSlot } from '@heliograph/plugins-sdk';
import plugin from '../src/index.js';

/** What the plugin publishes; the test host's record types `standing` only in later SDKs. */
type Schedule = { import: PriceSlot[]; export?: PriceSlot[]; standing?: PriceSlot[] };

describe('fixed tariff', () => {
  test('declares a provider without dynamic prices, and does nothing else', async () => {
    const host = await startTestHost({ plugin });
    assert.deepEqual(host.prices.provider, { provider: 'Fixed tariff', scheduleType: 'none' });
    assert.equal(host.jobs.size, 0);
    assert.equal(host.prices.schedules.length, 0);
    await host.stop();
    assert.equal(host.prices.provider, undefined, 'the declaration is undone when the plugin stops');
  });

  test('takes the provider name and currency from the config', async () => {
    const host = await startTestHost({ plugin, config: { provider: 'Stadtwerke Musterstadt', currency: 'EUR' } });
    assert.deepEqual(host.prices.provider, {
      provider: 'Stadtwerke Musterstadt',
      currency: 'EUR',
      scheduleType: 'none',
    });
    await host.stop();
  });

  test('with a time-of-use tariff it publishes today and the next two local days, and again each day', async () => {
    const H = 3_600_000;
    // 2026-03-28 in Paris: the day before the clocks go forward.
    const dayStart = Date.parse('2026-03-27T23:00:00Z');
    const host = await startTestHost({
      plugin,
      config: {
        provider: 'EDF Tarif Bleu HP/HC',
        currency: 'EUR',
        importPeriods: [
          { start: '22:00', end: '06:00', price: 0.2068 },
          { start: '06:00', end: '22:00', price: 0.27 },
        ],
        standingCharge: 0.52,
        exportPrice: 0.04,
      },
      site: { timeZone: 'Europe/Paris' },
      now: dayStart + 15 * H,
    });
    assert.deepEqual(host.prices.provider, {
      provider: 'EDF Tarif Bleu HP/HC',
      currency: 'EUR',
      scheduleType: 'import_export_pricing',
    });
    assert.deepEqual(host.jobs.get('publish')?.times, ['00:05']);
    const first = host.prices.schedules.at(-1) as Schedule;
    assert.equal(first.import[0]!.start, dayStart);
    assert.equal(first.import.at(-1)!.end, dayStart + (24 + 23 + 24) * H, 'three local days, one of 23 h');
    assert.equal(first.import.length, 71);
    assert.equal(first.export?.length, 71);
    assert.deepEqual(
      first.standing?.map((s) => [s.end - s.start, s.price]),
      [
        [24 * H, 0.52],
        [23 * H, 0.52],
        [24 * H, 0.52],
      ],
    );

    host.setTime(dayStart + 24 * H + 5 * 60_000);
    await host.runJob('publish');
    const next = host.prices.schedules.at(-1) as Schedule;
    assert.equal(host.prices.schedules.length, 2);
    assert.equal(next.import[0]!.start, dayStart + 24 * H, 'the daily run starts from the new local day');
    assert.equal(next.standing?.length, 3);
    await host.stop();
  });

  test('an import price alone declares pricing, without export or standing charge', async () => {
    const host = await startTestHost({ plugin, config: { currency: 'EUR', importPrice: 0.25 } });
    assert.equal(host.prices.provider?.scheduleType, 'pricing');
    const schedule = host.prices.schedules.at(-1) as Schedule;
    assert.ok(schedule.import.every((s) => s.price === 0.25));
    assert.equal(schedule.export, undefined);
    assert.equal(schedule.standing, undefined);
    await host.stop();
  });

  test('the config refuses an empty name and a malformed currency', async () => {
    await assert.rejects(startTestHost({ plugin, config: { provider: '  ' } }), /invalid config for fixed/);
    await assert.rejects(startTestHost({ plugin, config: { currency: 'euro' } }), /invalid config for fixed/);
    await assert.rejects(
      startTestHost({
        plugin,
        config: { currency: 'EUR', importPeriods: [{ start: '06:00', end: '22:00', price: 0.27 }] },
      }),
      /invalid config for fixed: .*importPeriods.*no period covers 00:00-06:00 every day/,
    );
  });
});
