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
