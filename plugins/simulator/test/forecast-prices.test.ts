import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ForecastTopic } from '@heliograph/plugins-sdk';
import { DateTime } from 'luxon';
import { DAY, HOUR, MIDSUMMER, MINUTE, num, pollThrough, startSimulator } from './helpers.js';

const QUARTER = 15 * MINUTE;
const TOPICS: ForecastTopic[] = [
  'pv_power_predicted',
  'outside_temperature',
  'weather_code',
  'is_day',
  'cloud_cover',
  'wind_speed',
  'global_tilted_irradiance',
];
const WMO_CODES = new Set([0, 1, 2, 3, 61, 63, 71, 73]);

describe('demo forecast', () => {
  it('publishes all seven topics from 48 h back to 72 h ahead at exact 15-minute spacing, every hour', async () => {
    const now = MIDSUMMER + 10 * HOUR + 7 * MINUTE + 13_000;
    const host = await startSimulator({ now, config: { demoForecast: true } });
    assert.equal(host.jobs.get('forecast')?.intervalMs, HOUR);
    await host.runJob('forecast');
    const [run] = host.forecasts;
    assert.equal(run!.fetchedAt, now);
    assert.equal(run!.demo, true, 'declared demo, so any forecast plugin takes precedence');
    assert.deepEqual(Object.keys(run!.series).sort(), [...TOPICS].sort());
    const aligned = MIDSUMMER + 10 * HOUR;
    for (const topic of TOPICS) {
      const points = run!.series[topic]!;
      assert.equal(points.length, (48 + 72) * 4 + 1, topic);
      points.forEach(([time, value], i) => {
        assert.equal(time, aligned - 48 * HOUR + i * QUARTER, `${topic}[${i}]`);
        assert.equal(typeof value, 'number');
      });
    }
    const values = (topic: ForecastTopic) => run!.series[topic]!.map(([, v]) => v as number);
    assert.ok(values('cloud_cover').every((v) => v >= 0 && v <= 100));
    assert.ok(values('weather_code').every((v) => WMO_CODES.has(v)));
    assert.ok(values('is_day').every((v) => v === 0 || v === 1));
    assert.ok(values('wind_speed').every((v) => v >= 0 && v < 100));
    assert.ok(values('global_tilted_irradiance').every((v) => v >= 0 && v < 1200));
    // Nothing at night, and only by day: is_day at T and PV averaged over the quarter after T.
    run!.series.pv_power_predicted!.forEach(([time, pv], i) => {
      const dark = values('is_day')[i] === 0 && values('is_day')[i + 1] !== 1;
      if (dark) assert.equal(pv, 0, new Date(time).toISOString());
      assert.ok((pv as number) <= 8000);
    });
    assert.ok(values('pv_power_predicted').some((v) => v > 2000));

    host.advance(HOUR);
    await host.runJob('forecast');
    assert.equal(host.forecasts[1]!.series.is_day![0]![0], aligned - 47 * HOUR);
    await host.stop();
  });

  it('predicts roughly the PV the live simulation then produces', async () => {
    for (const seed of [1, 2, 3]) {
      const host = await startSimulator({ config: { seed, demoForecast: true } });
      await host.runJob('forecast');
      const predicted = host.forecasts[0]!.series.pv_power_predicted!.filter(
        ([t]) => t > MIDSUMMER && t <= MIDSUMMER + DAY,
      );
      const predictedKwh = predicted.reduce((sum, [, w]) => sum + (w as number), 0) / 4 / 1000;
      let liveKwh = 0;
      await pollThrough(host, MIDSUMMER + MINUTE, MIDSUMMER + DAY, MINUTE, () => {
        liveKwh += (num(host, 'inverter_1/pv_power') + num(host, 'inverter_2/pv_power')) / 60 / 1000;
      });
      assert.ok(
        Math.abs(liveKwh / predictedKwh - 1) < 0.2,
        `seed ${seed}: ${liveKwh.toFixed(1)} kWh live, ${predictedKwh.toFixed(1)} kWh predicted`,
      );
      await host.stop();
    }
  });

  it('gives temperatures in the site unit', async () => {
    const celsius = await startSimulator({ config: { demoForecast: true } });
    const fahrenheit = await startSimulator({ config: { demoForecast: true }, site: { temperatureUnit: 'F' } });
    await celsius.runJob('forecast');
    await fahrenheit.runJob('forecast');
    const c = celsius.forecasts[0]!.series.outside_temperature!;
    const f = fahrenheit.forecasts[0]!.series.outside_temperature!;
    // Both are rounded to 0.1 degrees in their own unit.
    c.forEach(([, value], i) => assert.ok(Math.abs(((value as number) * 9) / 5 + 32 - (f[i]![1] as number)) <= 0.15));
    assert.ok(
      c.some(([, v]) => (v as number) > 15),
      'a Berlin midsummer',
    );
    await celsius.stop();
    await fahrenheit.stop();
  });

  it('can be switched off', async () => {
    const host = await startSimulator({ config: { demoForecast: false, demoPrices: false } });
    assert.deepEqual([...host.jobs.keys()], ['poll']);
    assert.equal(host.prices.provider, undefined);
    await host.stop();
  });
});

describe('demo prices', () => {
  const slotsOf = async (now: number, timeZone: string) => {
    const host = await startSimulator({ now, config: { demoPrices: true }, site: { timeZone } });
    assert.deepEqual(host.prices.provider, {
      provider: 'Simulator',
      currency: 'EUR',
      scheduleType: 'pricing',
      demo: true,
    });
    await host.runJob('prices');
    await host.stop();
    assert.equal(host.prices.schedules.length, 1);
    assert.equal(host.prices.schedules[0]!.export, undefined);
    return host.prices.schedules[0]!.import;
  };

  it('covers today and tomorrow in the site time zone with contiguous 15-minute slots', async () => {
    const now = Date.parse('2026-06-21T23:30:00Z'); // already 22 June in Berlin
    const slots = await slotsOf(now, 'Europe/Berlin');
    assert.equal(slots[0]!.start, Date.parse('2026-06-21T22:00:00Z'));
    assert.equal(slots.at(-1)!.end, Date.parse('2026-06-23T22:00:00Z'));
    assert.equal(slots.length, 2 * 96);
    slots.forEach((slot, i) => {
      assert.equal(slot.end - slot.start, 15 * MINUTE);
      if (i > 0) assert.equal(slot.start, slots[i - 1]!.end);
      assert.equal(slot.price, Math.round(slot.price * 1e5) / 1e5);
      assert.ok(slot.price > -0.1 && slot.price < 0.6);
    });
  });

  it('follows the clock change: a 25-hour day in October', async () => {
    const slots = await slotsOf(Date.parse('2026-10-24T12:00:00Z'), 'Europe/Berlin');
    assert.equal(slots.length, 96 + 100);
    assert.equal(slots[0]!.start, Date.parse('2026-10-23T22:00:00Z'));
    assert.equal(slots.at(-1)!.end, Date.parse('2026-10-25T23:00:00Z'));
    slots.forEach((slot, i) => i > 0 && assert.equal(slot.start, slots[i - 1]!.end));
  });

  it('is cheap at night and midday and dear at the evening peak, every day', async () => {
    for (let day = 0; day < 10; day++) {
      const slots = await slotsOf(MIDSUMMER + day * 2 * DAY, 'Europe/Berlin');
      const meanAt = (fromHour: number, toHour: number) => {
        const picked = slots.slice(0, 96).filter((s) => {
          const hour = DateTime.fromMillis(s.start, { zone: 'Europe/Berlin' }).hour;
          return hour >= fromHour && hour < toHour;
        });
        return picked.reduce((sum, s) => sum + s.price, 0) / picked.length;
      };
      const evening = meanAt(18, 21);
      const night = meanAt(1, 5);
      const midday = meanAt(11, 15);
      const morning = meanAt(7, 9);
      assert.ok(
        evening > night + 0.05 && evening > midday + 0.05,
        `day ${day}: evening ${evening}, night ${night}, midday ${midday}`,
      );
      assert.ok(morning > midday && morning > night);
    }
  });

  it("also covers the backfilled days at the first publish of a start, each at that day's own prices", async () => {
    const now = Date.parse('2026-06-21T10:00:00Z');
    const host = await startSimulator({ now, config: { demoPrices: true, backfill_days: 2 } });
    await host.runJob('prices');
    await host.runJob('prices');
    await host.stop();
    const [first, second] = host.prices.schedules.map((s) => s.import);
    // The backfill starts 2 days before now, 19 June 12:00 in Berlin: from that local midnight.
    assert.equal(first![0]!.start, Date.parse('2026-06-18T22:00:00Z'));
    assert.equal(first!.length, 4 * 96);
    first!.forEach((slot, i) => i > 0 && assert.equal(slot.start, first![i - 1]!.end));
    assert.equal(second![0]!.start, Date.parse('2026-06-20T22:00:00Z'), 'later publishes: today and tomorrow');
    // A past day's prices are what that day's publish said then.
    const then = await startSimulator({ now: now - 2 * DAY, config: { demoPrices: true } });
    await then.runJob('prices');
    await then.stop();
    assert.deepEqual(first!.slice(0, 96), then.prices.schedules[0]!.import.slice(0, 96));
  });

  it('keeps the zone of its first run: an owner who sets the site zone later changes no published price', async () => {
    const now = Date.parse('2026-06-21T10:00:00Z');
    const config = { demoPrices: true, backfill_days: 2 };
    const utc = await startSimulator({ now, config, site: { timeZone: 'UTC' } });
    await utc.runJob('prices');
    await utc.stop();
    assert.equal(utc.store.get('priceZone'), 'UTC');
    // The restart after the owner set Europe/Berlin, on the same store.
    const berlin = await startSimulator({
      now,
      config,
      site: { timeZone: 'Europe/Berlin' },
      store: Object.fromEntries(utc.store),
    });
    await berlin.runJob('prices');
    await berlin.stop();
    const [before] = utc.prices.schedules.map((s) => s.import);
    const [after] = berlin.prices.schedules.map((s) => s.import);
    assert.deepEqual(after, before, 'the same slots at the same prices');
  });
});
