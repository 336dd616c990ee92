import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyCalibration, calibratePv, describeFactors, FACTOR_MAX, FACTOR_MIN } from '../src/pv-calibration.js';

const HOUR = 3_600_000;
const ZONE = 'Europe/Berlin';
/** Local midnight of 1 June 2026 in Berlin (CEST, UTC+2). */
const DAY0 = Date.UTC(2026, 5, 1) - 2 * HOUR;

/** The provider's forecast for a local hour, W: a bell from 06:00 to 20:00 peaking at 4 kW at 13:00. */
const provider = (hour: number) =>
  hour < 6 || hour >= 20 ? 0 : Math.round(4000 * Math.sin(((hour + 0.5 - 6) / 14) * Math.PI));

/** 21 days of hourly means: the provider's forecast and what the site made (`actual(hour, forecast)`). */
function history(actual: (hour: number, forecast: number, day: number) => number) {
  const forecast = [];
  const made = [];
  for (let day = 0; day < 21; day++)
    for (let hour = 0; hour < 24; hour++) {
      const time = DAY0 + day * 24 * HOUR + hour * HOUR;
      forecast.push({ time, value: provider(hour) });
      made.push({ time, value: actual(hour, provider(hour), day) });
    }
  return { forecast, actual: made, now: DAY0 + 21 * 24 * HOUR + 6 * HOUR };
}

describe('the PV calibration', () => {
  test('learns per local hour what the site makes of the forecast, and its error drops', () => {
    // A tree shades the array until 10:00: it makes 60 % of the forecast then, 100 % after.
    const h = history((hour, f) => (hour < 10 ? 0.6 * f : f));
    const c = calibratePv({ ...h, timeZone: ZONE });
    assert.equal(c.factors.length, 24);
    assert.ok(Math.abs(c.factors[8]! - 0.6) < 1e-9, `08:00-09:00 factor ${c.factors[8]}`);
    assert.ok(Math.abs(c.factors[13]! - 1) < 1e-9, `13:00-14:00 factor ${c.factors[13]}`);
    assert.equal(c.factors[2], 1, 'a night hour (nothing forecast) keeps factor 1');
    // Error before: 40 % of the morning forecast; after: none (the shade is the same every day).
    const mornings = [6, 7, 8, 9].map((hour) => 0.4 * provider(hour));
    const daylight = 14;
    const expectedRaw = mornings.reduce((a, b) => a + b, 0) / daylight;
    assert.ok(c.maeRawW !== null && Math.abs(c.maeRawW - expectedRaw) < 1e-6, `raw MAE ${c.maeRawW} vs ${expectedRaw}`);
    assert.ok(c.maeCalibratedW !== null && c.maeCalibratedW < 1e-6, `calibrated MAE ${c.maeCalibratedW}`);
    assert.match(describeFactors(c), /^06-07 0\.60, 07-08 0\.60, 08-09 0\.60, 09-10 0\.60, 10-11 1\.00/);
  });

  test('is bounded: a snowed-in week or a broken meter neither zeroes nor doubles the forecast', () => {
    const h = history((hour, f) => (hour === 12 ? 0 : hour === 14 ? 3 * f : f));
    const c = calibratePv({ ...h, timeZone: ZONE });
    assert.equal(c.factors[12], FACTOR_MIN);
    assert.equal(c.factors[14], FACTOR_MAX);
  });

  test('learns from the last 14 days only, and measures each day with what was known before it', () => {
    // The shade came a week ago (day 14): the old days still pull the factor towards 1.
    const h = history((hour, f, day) => (day >= 14 && hour < 10 ? 0.5 * f : f));
    const c = calibratePv({ ...h, timeZone: ZONE });
    assert.ok(Math.abs(c.factors[8]! - 0.75) < 1e-9, `half the 14 days shaded: ${c.factors[8]}`);
    // Each of the last 7 days is measured with factors from the 14 days before it only: on day
    // 14 + k, k of them shaded, the morning factor is 1 - 0.5 k / 14 and the error 0.5 (1 - k / 14)
    // of the forecast, against 0.5 raw: over k = 0..6 the calibrated error is 11/14 of the raw.
    assert.ok(Math.abs(c.maeCalibratedW! / c.maeRawW! - 11 / 14) < 1e-9, `${c.maeCalibratedW} / ${c.maeRawW}`);
    // Without any shade the errors are zero both ways, and no history gives factor 1 everywhere.
    const none = calibratePv({ actual: [], forecast: [], now: h.now, timeZone: ZONE });
    assert.deepEqual(none.factors, new Array(24).fill(1));
    assert.equal(none.maeRawW, null);
    assert.equal(describeFactors(none), 'none yet (too little history)');
  });

  test("applies the factor of each quarter hour's local hour", () => {
    const factors = new Array<number>(24).fill(1);
    factors[8] = 0.5;
    const at0815 = DAY0 + 8 * HOUR + 15 * 60_000;
    const at0900 = DAY0 + 9 * HOUR;
    const out = applyCalibration(
      new Map([
        [at0815, 2000],
        [at0900, 2000],
      ]),
      factors,
      ZONE,
    );
    assert.deepEqual([...out.values()], [1000, 2000]);
  });
});
