import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PluginContext } from '@heliograph/plugins-sdk';
import { readTemperature } from '../src/load-inputs.js';
import { forecastLoad, type Point } from '../src/load-forecast.js';
import { HEATING_BASE_C, MAX_W_PER_K } from '../src/load-temperature.js';

const QUARTER = 15 * 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ZONE = 'UTC';
/** A Monday, midnight UTC. */
const DAY0 = Date.UTC(2026, 0, 5);
const DAYS = 28;

/** Each day's mean outside temperature, °C: mild days with a cold spell, every one different. */
const dayMean = (d: number) => 6 + 5 * Math.sin(d * 1.7) + (d % 9 === 4 ? -7 : 0);
/** Outside temperature at a quarter hour of a day, °C: its mean and a daily cycle. */
const outside = (mean: number, q: number) => mean + 3 * Math.cos((2 * Math.PI * (q / 4 - 15)) / 24);
/**
 * Household load, W: a profile with an evening peak, and `wPerK` per degree that the last 12
 * hours (a house's mass lags the outside) were below 18 °C on average.
 */
const load = (q: number, feltC: number, wPerK: number) =>
  300 + 400 * Math.exp(-(((q / 4 - 19) / 2) ** 2)) + wPerK * Math.max(0, HEATING_BASE_C - feltC);

/** Per quarter hour of `celsius` (from a midnight on), the mean of its hour and the 11 before, °C. */
function felt(celsius: readonly number[]): number[] {
  const hours = Array.from(
    { length: celsius.length / 4 },
    (_, h) => (celsius[4 * h]! + celsius[4 * h + 1]! + celsius[4 * h + 2]! + celsius[4 * h + 3]!) / 4,
  );
  return celsius.map((_, q) => {
    const h = Math.floor(q / 4);
    const last = hours.slice(Math.max(0, h - 11), h + 1);
    return last.reduce((a, b) => a + b, 0) / last.length;
  });
}

/** A day's own level, -1 to 1, unrelated to its temperature (a seeded sequence). */
const level = (d: number) => (((d * 2654435761) >>> 0) % 1000) / 500 - 1;

/**
 * `DAYS` days of history, and the day after it with its temperature (`targetMean`); each
 * recorded day's load off by up to `levelW` for reasons other than the weather.
 */
function site(wPerK: number, targetMean: number, levelW = 0) {
  const celsius = Array.from({ length: (DAYS + 1) * 96 }, (_, i) =>
    outside(Math.floor(i / 96) < DAYS ? dayMean(Math.floor(i / 96)) : targetMean, i % 96),
  );
  const lagged = felt(celsius);
  const history: Point[] = [];
  const temperatureC: Point[] = [];
  const targets: number[] = [];
  const actual: number[] = [];
  const forecastC: Point[] = [];
  celsius.forEach((c, i) => {
    const time = DAY0 + i * QUARTER;
    const d = Math.floor(i / 96);
    const value = load(i % 96, lagged[i]!, wPerK);
    if (d < DAYS) {
      history.push({ time, value: value + levelW * level(d) });
      temperatureC.push({ time, value: c });
    } else {
      targets.push(time);
      actual.push(value);
      forecastC.push({ time, value: c });
    }
  });
  return { history, temperatureC, forecastC, targets, actual };
}

/** The load forecast for `s`'s day, with `temperatureC` where given (none: no temperature term asked for). */
const forecastFor = (s: Pick<ReturnType<typeof site>, 'history' | 'targets'>, temperatureC?: Point[]) =>
  forecastLoad({ history: s.history, targets: s.targets, timeZone: ZONE, ...(temperatureC && { temperatureC }) });
/** The load forecast for `s`'s day from its past temperatures and its day's forecast. */
const withForecastC = (s: ReturnType<typeof site>) => forecastFor(s, [...s.temperatureC, ...s.forecastC]);

const mae = (a: readonly (number | null)[], b: readonly number[]) =>
  b.reduce((s, v, i) => s + Math.abs((a[i] ?? 0) - v), 0) / b.length;

describe('the load forecast with the outside temperature', () => {
  test('follows a cold day where the load rises with the cold, and its error says so', () => {
    const s = site(60, -6);
    const blend = forecastFor(s);
    const warm = withForecastC(s);
    assert.ok(warm.temperature, 'a temperature term');
    assert.ok(
      Math.abs(warm.temperature.heatingAllHours - 60) < 6,
      `${warm.temperature.heatingAllHours.toFixed(1)} W per heating degree, 60 in the data`,
    );
    const before = mae(blend.values, s.actual);
    const after = mae(warm.values, s.actual);
    // The cold day draws some 700 W more than the days before it: the blend misses most of it.
    assert.ok(before > 400, `the blend alone is ${before.toFixed(0)} W off on the cold day`);
    assert.ok(
      after < 0.1 * before,
      `with the temperature ${after.toFixed(0)} W off, blend alone ${before.toFixed(0)} W`,
    );
    // The error measured on the recorded days is the method's own, the term included.
    assert.ok(
      warm.maeW !== null && blend.maeW !== null && warm.maeW < 0.5 * blend.maeW,
      `${warm.maeW} < ${blend.maeW}`,
    );
  });

  test('falls back to the blend where the temperature is missing', () => {
    const s = site(60, -6);
    const blend = forecastFor(s);
    const none = forecastFor(s, []);
    assert.equal(none.temperature, null);
    assert.deepEqual(none.values, blend.values);
    // Learnt from the past, but no forecast of the temperature for the day: the blend for it.
    const pastOnly = forecastFor(s, s.temperatureC);
    assert.ok(pastOnly.temperature, 'the term is learnt from the past');
    assert.deepEqual(pastOnly.values, blend.values);
    // A forecast for the first half of the day only: the second half is the blend's.
    const half = forecastFor(s, [...s.temperatureC, ...s.forecastC.slice(0, 48)]);
    assert.deepEqual(half.values.slice(48), blend.values.slice(48));
    assert.ok(half.values[44]! > blend.values[44]! + 300, `11:00 follows the cold: ${half.values[44]} W`);
  });

  test('has no term where the load does not follow the temperature, nor beyond its bound', () => {
    // Days 200 W up or down for reasons of their own, none of them the temperature.
    const s = site(0, -6, 200);
    const blend = forecastFor(s);
    const f = withForecastC(s);
    assert.equal(f.temperature, null, 'nothing to explain: no term');
    assert.deepEqual(f.values, blend.values);
    const huge = site(1000, 10); // twice the bound
    const g = withForecastC(huge);
    assert.ok(g.temperature && Math.max(...g.temperature.heatingWPerK) <= MAX_W_PER_K, 'bounded');
  });
});

describe("the planner's record of the outside temperature", () => {
  /** A context with the site's forecast of the temperature (`points`, in `unit`) and a store. */
  function context(unit: 'C' | 'F', points: () => Array<{ time: number; value: number }>) {
    const store = new Map<string, unknown>();
    const ctx = {
      site: {
        temperatureUnit: unit,
        forecast: ({ topic, fromMs, toMs }: { topic: string; fromMs: number; toMs: number }) => {
          assert.equal(topic, 'weather/outside_temperature');
          return Promise.resolve(points().filter((p) => p.time >= fromMs && p.time < toMs));
        },
      },
      store: {
        get: (key: string) => Promise.resolve(store.get(key)),
        set: (key: string, value: unknown) => Promise.resolve(void store.set(key, structuredClone(value))),
        delete: (key: string) => Promise.resolve(void store.delete(key)),
      },
      log: { debug() {}, info() {}, warn() {}, error() {} },
    };
    return ctx as unknown as PluginContext;
  }
  /** The forecast store's span at `now`: 48 h back and 72 h ahead, every quarter hour. */
  const span = (now: number, value: (time: number) => number) =>
    Array.from({ length: (120 * HOUR) / QUARTER }, (_, i) => now - 48 * HOUR + i * QUARTER).map((time) => ({
      time,
      value: value(time),
    }));

  test('keeps the hours the forecast drops, in °C from a site in °F', async () => {
    let now = DAY0;
    const fahrenheit = (time: number) => 32 + (9 / 5) * ((time - DAY0) / DAY); // 0 °C at DAY0, 1 K warmer a day
    const ctx = context('F', () => span(now, fahrenheit));
    const keep = 28 * DAY;
    const first = await readTemperature(ctx, now, now + DAY, keep);
    assert.ok(Math.abs(first.find((p) => p.time === DAY0)!.value) < 1e-9, '32 °F is 0 °C');
    // Four days on, the forecast holds only the last 48 h: the days before come from the record.
    for (let d = 1; d <= 4; d++) {
      now = DAY0 + d * DAY;
      await readTemperature(ctx, now, now + DAY, keep);
    }
    const later = await readTemperature(ctx, now, now + DAY, keep);
    const at = (time: number) => later.find((p) => p.time === time)?.value;
    const hourMean = (h: number) => (((h + 0.375) * HOUR) / DAY) * 1; // mean of the hour's 4 quarter hours, °C
    assert.ok(Math.abs(at(DAY0 - 48 * HOUR + 5 * HOUR)! - hourMean(-43)) < 0.06, 'an hour the forecast no longer has');
    assert.ok(Math.abs(at(now + 12 * HOUR)! - (now + 12 * HOUR - DAY0) / DAY) < 1e-9, 'the forecast ahead');
  });
});
