/// <reference types="node" />
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cheapestWindow } from '../cards/price-window.js';
import { spanColumn, timeTicks } from '../charts/chart-scale.js';
import { formatDuration, formatQuantity, formatReading } from '../ui/format.js';

const Q = 900_000;

test('the cheapest window of a given length, across slot boundaries, never across a hole', () => {
  const t0 = Date.parse('2026-11-26T00:00:00Z');
  const prices = [5, 4, 1, 2, 9, 0.5, 0.5, 9, 3, 3];
  const slots = prices.map((price, i) => ({ from: t0 + i * Q, to: t0 + (i + 1) * Q, price }));
  assert.deepEqual(cheapestWindow(slots, 15, t0, t0 + 10 * Q), { from: t0 + 5 * Q, to: t0 + 6 * Q, mean: 0.5 });
  // 30 min: slots 5-6 (0.5) beat 2-3 (1.5).
  assert.equal(cheapestWindow(slots, 30, t0, t0 + 10 * Q)?.from, t0 + 5 * Q);
  // 45 min: 1, 2, 9 = 4; 9, 0.5, 0.5 = 3.33; 0.5, 0.5, 9 = 3.33 (the earlier wins); 4, 1, 2 = 2.33.
  const w = cheapestWindow(slots, 45, t0, t0 + 10 * Q);
  assert.equal(w?.from, t0 + Q);
  assert.ok(Math.abs(w.mean - 7 / 3) < 1e-9);
  // A hole (slot 6 missing) splits the schedule: no window runs across it.
  const holed = slots.filter((_, i) => i !== 6);
  assert.equal(cheapestWindow(holed, 30, t0, t0 + 10 * Q)?.from, t0 + 2 * Q);
  // Hourly slots and a 2-h window; none fits in a range shorter than it.
  const hourly = [3, 1, 1, 3].map((price, i) => ({ from: t0 + i * 4 * Q, to: t0 + (i + 1) * 4 * Q, price }));
  assert.deepEqual(cheapestWindow(hourly, 120, t0, t0 + 16 * Q), { from: t0 + 4 * Q, to: t0 + 12 * Q, mean: 1 });
  assert.equal(cheapestWindow(hourly, 120, t0, t0 + 4 * Q), null);
});

test('series of different resolutions each draw fully; a gap of their own still breaks the line', () => {
  // 15-min times (the forecast's), an hourly series with one missing hour.
  const times = Array.from({ length: 17 }, (_, i) => i * 900);
  const hourly: Array<number | null> = times.map((t) => (t % 3600 === 0 && t !== 7200 ? t : null));
  const spanned = spanColumn(times, hourly, 3600);
  // Between 0 and 3600: bridged (undefined); between 3600 and 10800 (7200 missing): a gap (null).
  assert.deepEqual(spanned.slice(0, 5), [0, undefined, undefined, undefined, 3600]);
  assert.deepEqual(spanned.slice(5, 12), [null, null, null, null, null, null, null]);
  assert.deepEqual(spanned.slice(12, 17), [10800, undefined, undefined, undefined, 14400]);
});

test('time axis labels follow the locale and the site zone; quantities scale', () => {
  const t = Date.parse('2026-11-25T13:00:00Z') / 1000;
  // en-GB or not, a 24-hour locale never gets "PM" from the page's own formats.
  const label = timeTicks([t], 86400, 'Europe/Berlin')[0]!;
  const expected = new Intl.DateTimeFormat(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'Europe/Berlin',
  }).format(t * 1000);
  assert.equal(label, expected);
  assert.match(timeTicks([t], 86400, 'UTC')[0]!, /13|1/);
  // Hourly ticks over a week: the day's name at the site's midnight, times between.
  const midnight = Date.parse('2026-11-24T23:00:00Z') / 1000; // 00:00 on Wed 25 in Berlin
  const labels = timeTicks([midnight - 43200, midnight, midnight + 43200], 7 * 86400, 'Europe/Berlin');
  assert.equal(
    labels[1],
    new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', timeZone: 'Europe/Berlin' }).format(
      midnight * 1000,
    ),
  );
  assert.equal(labels[0], labels[2], 'noon is a time of day on both days');
  assert.notEqual(labels[0], labels[1]);
  // Daily ticks over a month: days; over a year: months and days.
  assert.equal(timeTicks([midnight, midnight + 86400], 30 * 86400, 'Europe/Berlin').length, 2);
  assert.match(formatQuantity(1830, 'W'), /^1[.,]83 kW$/);
  assert.match(formatQuantity(12.345, 'kWh'), /^12[.,]3 kWh$/);
  // Raw device units read as people write them; storage scaled by 1024 as systems show it.
  assert.match(formatQuantity(81586, 'MB'), /^79[.,]7 GB$/);
  assert.match(formatQuantity(512, 'MB'), /^512 MB$/);
  assert.match(formatQuantity(431.5, 'W/m2'), /^431[.,]5 W\/m²$/);
  assert.equal(formatReading('weather/wind_speed', 12, 'kmh'), '12 km/h');
});

test('readings as people read them: ids as written, weather by name, uptime in days and hours', () => {
  assert.equal(formatReading('system/site_id', 1234567, ''), '1234567');
  assert.equal(formatReading('inverter_1/serial', 20230412, '', true), '20230412');
  assert.equal(formatReading('weather/weather_code', 2, 'WMO code'), 'Partly cloudy');
  assert.equal(formatReading('weather/weather_code', 42, 'WMO code'), 'Weather code 42');
  assert.equal(formatReading('system/uptime', 93784, 's'), '1 d 2 h');
  assert.equal(formatReading('system/uptime', 3725, 's'), '1 h 2 min');
  assert.equal(formatReading('system/uptime', 42, 's'), '42 s');
  assert.match(formatReading('total/grid_power', -1200, 'W'), /^1[.,]2 kW exporting$/);
  assert.equal(formatDuration(0), '0 s');
});
