import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PluginContext } from '@heliograph/plugins-sdk';
import type { PlannerConfig } from '../src/config.js';
import { LocalCalendar } from '../src/load-forecast.js';
import { measuredSoFar } from '../src/measured.js';

const QUARTER = 15 * 60_000;
const HOUR = 3_600_000;

test("today's PV is read from the site's local midnight, and counted only where the forecast has the quarter", async () => {
  // 10:07 in Berlin (UTC+2): local midnight is 22:00 UTC the day before.
  const now = Date.UTC(2026, 5, 10, 8, 7);
  const midnight = Date.UTC(2026, 5, 9, 22);
  const asked: Array<{ topic: string; fromMs: number; toMs: number }> = [];
  // Recorded: 2 kW every quarter from 05:00 local to the current quarter (10:00), load 600 W.
  const pv = Array.from({ length: 20 }, (_, i) => ({ time: midnight + 5 * HOUR + i * QUARTER, value: 2000 }));
  const ctx = {
    site: {
      timeZone: 'Europe/Berlin',
      history: (q: { topic: string; fromMs: number; toMs: number }) => {
        asked.push(q);
        const points = q.topic === 'total/pv_power' ? pv : [{ time: now - 7 * 60_000 - QUARTER, value: 600 }];
        return Promise.resolve(points.filter((p) => p.time >= q.fromMs && p.time < q.toMs));
      },
    },
  } as unknown as PluginContext;
  // The forecast said 4 kW, but has nothing before 06:00 local.
  const pvW = new Map<number, number>();
  for (let t = midnight + 6 * HOUR; t < now + HOUR; t += QUARTER) pvW.set(t, 4000);
  const config = { loadTopic: 'total/load_power' } as PlannerConfig;
  const m = await measuredSoFar(ctx, config, now, pvW, new LocalCalendar('Europe/Berlin'));
  const to = Date.UTC(2026, 5, 10, 8);
  assert.deepEqual(
    asked.map((q) => [q.topic, q.fromMs, q.toMs]),
    [
      ['total/pv_power', midnight, to],
      ['total/load_power', to - QUARTER, to],
    ],
  );
  // 06:00-10:00 local: 16 quarters, 2 kW made against 4 forecast.
  assert.deepEqual(m.pvToday, { madeKwh: 8, forecastKwh: 16, dayEnd: midnight + 24 * HOUR });
  assert.equal(m.pvW, 2000, 'the last whole quarter');
  assert.equal(m.loadW, 600);
});

test('the local day starts at local midnight and ends at the next on the days a clock changes', () => {
  const berlin = new LocalCalendar('Europe/Berlin');
  // 30 March 2025, 10:00 summer time (08:00 UTC): the day began at 00:00 winter time.
  const spring = Date.UTC(2025, 2, 30, 8);
  assert.equal(berlin.dayStart(spring), Date.UTC(2025, 2, 29, 23));
  assert.equal(berlin.dayEnd(spring), Date.UTC(2025, 2, 30, 22), '23 hours');
  // 26 October 2025, 10:00 winter time (09:00 UTC): the day began at 00:00 summer time.
  const autumn = Date.UTC(2025, 9, 26, 9);
  assert.equal(berlin.dayStart(autumn), Date.UTC(2025, 9, 25, 22));
  assert.equal(berlin.dayEnd(autumn), Date.UTC(2025, 9, 26, 23), '25 hours');
  // Before the change the same night: 01:30 summer time is in the day that began at 00:00 summer time.
  assert.equal(berlin.dayStart(Date.UTC(2025, 9, 25, 23, 30)), Date.UTC(2025, 9, 25, 22));
  // The last minute of a day, and its midnight itself.
  assert.equal(berlin.dayStart(Date.UTC(2025, 5, 10, 21, 59, 59)), Date.UTC(2025, 5, 9, 22));
  assert.equal(berlin.dayStart(Date.UTC(2025, 5, 10, 22)), Date.UTC(2025, 5, 10, 22));
  // Havana's clock skips from 00:00 to 01:00 on 9 March 2025: the day's first minute is 01:00 (05:00 UTC).
  const havana = new LocalCalendar('America/Havana');
  assert.equal(havana.dayStart(Date.UTC(2025, 2, 9, 15)), Date.UTC(2025, 2, 9, 5));
  assert.equal(havana.dayEnd(Date.UTC(2025, 2, 8, 15)), Date.UTC(2025, 2, 9, 5));
  // A zone without summer time, east of UTC by a half hour's part.
  const kolkata = new LocalCalendar('Asia/Kolkata');
  assert.equal(kolkata.dayStart(Date.UTC(2025, 2, 30, 8)), Date.UTC(2025, 2, 29, 18, 30));
  assert.deepEqual(kolkata.position(Date.UTC(2025, 2, 30, 8)), {
    day: Date.UTC(2025, 2, 30) / 86_400_000,
    minute: 13 * 60 + 30,
  });
});

test("on a day the forecast leaves out, today's PV is compared with the nearest day's forecast", async () => {
  // 12:00 UTC; made 1 kW from 06:00. The forecast has yesterday only (2 kW at every quarter).
  const day = Date.UTC(2026, 5, 10);
  const now = day + 12 * HOUR;
  const pv = Array.from({ length: 24 }, (_, i) => ({ time: day + 6 * HOUR + i * QUARTER, value: 1000 }));
  const ctx = {
    site: {
      timeZone: 'UTC',
      history: (q: { topic: string; fromMs: number; toMs: number }) =>
        Promise.resolve(q.topic === 'total/pv_power' ? pv.filter((p) => p.time >= q.fromMs && p.time < q.toMs) : []),
    },
  } as unknown as PluginContext;
  const pvW = new Map<number, number>();
  for (let q = 0; q < 96; q++) pvW.set(day - 24 * HOUR + q * QUARTER, 2000);
  const m = await measuredSoFar(
    ctx,
    { loadTopic: 'total/load_power' } as PlannerConfig,
    now,
    pvW,
    new LocalCalendar('UTC'),
  );
  // 06:00-12:00: 6 kWh made against yesterday's 12, as the plan took it for today.
  assert.deepEqual(m.pvToday, { madeKwh: 6, forecastKwh: 12, dayEnd: day + 24 * HOUR });
});
