// GET /api/v1/energy on the real server with the simulator's backfilled days (crossing the end
// of summer time in Berlin) on a manual clock: changing the zone and the reset period through
// PUT /api/v1/config leaves every past hour's, day's and month's kWh and money as they were,
// and the days after the change are days of the new zone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '@heliograph/core/clock';
import type { EnergyResponse } from '@heliograph/core/api-types';
import { jsonBody, startTestServer } from '../helpers/server.js';
import { pollUntil } from '../helpers/deadline.js';
import { instanceWhen } from '../drivers/driver-api.js';

const H = 3_600_000;
// Tuesday 2026-10-27, 11:00 in Berlin: four days back is Friday, before Sunday's 25-hour day.
const NOW = Date.parse('2026-10-27T10:00:00Z');
const clock = new ManualClock(NOW);
const server = await startTestServer({
  clock,
  bundled: ['simulator'],
  // Prices by the UTC hour, published again alike at each start: the simulator's demo prices
  // follow the site's local time, so its restart after a zone change would re-derive the past.
  fixtures: ['utc-prices'],
  config: { site: { timeZone: 'Europe/Berlin', latitude: 52.5, longitude: 13.4 }, energy: { resetPeriod: 'weekly' } },
  plugins: [
    {
      id: 'sim',
      plugin: 'simulator',
      devices: ['inverter_1', 'battery_1'],
      config: { backfill_days: 4, demoPrices: false, demoForecast: false, pollIntervalMs: 1000 },
    },
    { id: 'prices', plugin: 'utc-prices', config: { days: 6 } },
  ],
});

async function energy(query: string, status = 200): Promise<EnergyResponse & { code?: string }> {
  const res = await server.api(`/api/v1/energy?${query}`);
  const body = (await res.json()) as EnergyResponse & { code?: string };
  assert.equal(res.status, status, JSON.stringify(body).slice(0, 400));
  return body;
}

const iso = (ms: number) => new Date(ms).toISOString();
const DAYS = `period=day&from=2026-10-22T22:00:00Z&to=${iso(NOW)}`;
const MONTHS = `period=month&from=2026-10-01T00:00:00Z&to=${iso(NOW)}`;
const DST_HOURS = 'period=hour&from=2026-10-24T22:00:00Z&to=2026-10-25T23:00:00Z';

test('past figures keep their zone, bounds, kWh and money when the zone and the reset period change', async () => {
  // The backfill runs from the oldest hour on, in batches that history takes a moment to
  // read back: the days are read until two answers a second apart agree.
  let previous = '';
  await pollUntil(
    async () => {
      const { buckets } = await energy(`period=hour&from=${iso(NOW - H)}&to=${iso(NOW)}`);
      const days = await energy(DAYS);
      const complete = buckets[0]?.energy !== null && days.buckets.every((b) => b.money !== null);
      const now = JSON.stringify(days);
      const settled = complete && now === previous;
      previous = complete ? now : '';
      return { done: settled, seen: { lastHour: buckets[0], days: days.buckets.map((b) => b.energy) } };
    },
    'the backfilled hour before now, the prices of the backfilled days, and the days no longer moving',
    { ms: 90_000, everyMs: 1000 },
  );
  const days = await energy(DAYS);
  assert.deepEqual(
    days.buckets.map((b) => [b.from, b.to, b.time_zone]),
    [
      ['2026-10-23T00:00:00+02:00', '2026-10-24T00:00:00+02:00', 'Europe/Berlin'],
      ['2026-10-24T00:00:00+02:00', '2026-10-25T00:00:00+02:00', 'Europe/Berlin'],
      // The end of summer time: a 25-hour day.
      ['2026-10-25T00:00:00+02:00', '2026-10-26T00:00:00+01:00', 'Europe/Berlin'],
      ['2026-10-26T00:00:00+01:00', '2026-10-27T00:00:00+01:00', 'Europe/Berlin'],
      ['2026-10-27T00:00:00+01:00', '2026-10-28T00:00:00+01:00', 'Europe/Berlin'],
    ],
  );
  assert.equal(days.currency, 'EUR');
  for (const b of days.buckets.slice(1, 4)) {
    assert.ok(b.energy!.load > 1, `${b.from}: a whole day's load (${JSON.stringify(b.energy)})`);
    assert.ok(b.energy!.pv > 0, `${b.from}: some sun`);
    assert.equal(b.money!.unpriced_hours, 0, `${b.from}: every hour priced`);
  }
  assert.equal(days.buckets[2]!.money!.priced_hours, 25);
  const hours = await energy(DST_HOURS);
  assert.equal(hours.buckets.length, 25);
  assert.deepEqual(
    hours.buckets.slice(2, 4).map((b) => b.from),
    ['2026-10-25T02:00:00+02:00', '2026-10-25T02:00:00+01:00'],
  );
  // The day is its hours: one reading of the counters, however it is cut.
  const sum = hours.buckets.reduce((s, b) => s + b.energy!.load, 0);
  assert.ok(Math.abs(sum - days.buckets[2]!.energy!.load) < 0.01, `${sum} = ${days.buckets[2]!.energy!.load}`);
  const months = await energy(MONTHS);
  assert.deepEqual(
    months.buckets.map((b) => [b.from, b.to]),
    [['2026-10-01T00:00:00+02:00', '2026-11-01T00:00:00+01:00']],
  );

  const changed = await server.api('/api/v1/config', {
    ...jsonBody({ site: { timeZone: 'America/New_York' }, energy: { resetPeriod: 'daily' } }),
    method: 'PUT',
  });
  assert.equal(changed.status, 200, await changed.clone().text());
  assert.deepEqual(await energy(DAYS), days, 'every day, today included, as before the change');
  assert.deepEqual(await energy(DST_HOURS), hours, 'the 25 hours of the DST day as before');
  assert.deepEqual(await energy(MONTHS), months, 'October as before: the change waits for its end');

  // Past the end of today in Berlin: the counters reset at New York's midnight from now on.
  clock.set(Date.parse('2026-10-28T01:00:00Z'));
  const at = clock.now();
  await instanceWhen(
    server,
    'sim',
    (i) => Date.parse((i as unknown as { last_poll: string | null }).last_poll ?? '') >= at,
    `a poll of the simulator at ${iso(at)}`,
  );
  const later = await energy(`period=day&from=2026-10-22T22:00:00Z&to=${iso(at)}`);
  assert.deepEqual(later.buckets.slice(0, 4), days.buckets.slice(0, 4), 'the past days are still the same');
  // What was today: its kWh as they were (no reading since), its standing charge now the whole day's.
  assert.deepEqual(later.buckets[4]!.energy, days.buckets[4]!.energy);
  assert.equal(later.buckets[4]!.time_zone, 'Europe/Berlin');
  assert.deepEqual(
    later.buckets.slice(5).map((b) => [b.from, b.to, b.time_zone]),
    [
      // What is left of New York's Oct 27 after Berlin's ended.
      ['2026-10-27T19:00:00-04:00', '2026-10-28T00:00:00-04:00', 'America/New_York'],
    ],
  );
  assert.ok(later.buckets[5]!.energy, 'the poll after the change has its reading');
  assert.deepEqual(await energy(DST_HOURS), hours);
});

test('a period, from and to are required; ranges are bounded per period; errors name what was wrong', async () => {
  const missing = await energy('period=day&from=2026-10-22T00:00:00Z', 400);
  assert.equal(missing.code, 'QUERY_INVALID');
  assert.equal(
    (missing as unknown as { error: string }).error,
    'to is required: an RFC 3339 time such as 2026-11-22T00:00:00Z',
    'the missing parameter named, in its own words',
  );
  const local = await energy('period=day&from=2026-10-22T00:00:00&to=2026-10-23T00:00:00Z', 400);
  assert.match((local as unknown as { error: string }).error, /from must be an RFC 3339 time .*"2026-10-22T00:00:00"/);
  const week = await energy('period=week&from=2026-10-22T00:00:00Z&to=2026-10-23T00:00:00Z', 400);
  assert.equal(week.code, 'QUERY_INVALID');
  const reversed = await energy('period=day&from=2026-10-23T00:00:00Z&to=2026-10-22T00:00:00Z', 400);
  assert.equal(reversed.code, 'QUERY_INVALID');
  const long = await energy('period=hour&from=2026-09-01T00:00:00Z&to=2026-10-22T00:00:00Z', 400);
  assert.match((long as unknown as { error: string }).error, /at most 31 days apart for period=hour/);
  const years = await energy('period=year&from=2020-01-01T00:00:00Z&to=2026-10-22T00:00:00Z');
  assert.deepEqual(
    years.buckets.map((b) => [b.from, b.energy === null]),
    [
      ['2020-01-01T00:00:00+01:00', true],
      ['2021-01-01T00:00:00+01:00', true],
      ['2022-01-01T00:00:00+01:00', true],
      ['2023-01-01T00:00:00+01:00', true],
      ['2024-01-01T00:00:00+01:00', true],
      ['2025-01-01T00:00:00+01:00', true],
      ['2026-01-01T00:00:00+01:00', false],
    ],
  );
});
