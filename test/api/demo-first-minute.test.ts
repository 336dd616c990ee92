// The demo's first minute (issue 40): the backfill's progress in the plugin status until its
// end, today's totals real from the first answers (what the README's Quick start curl reads),
// and the live battery going on from the charge the backfill ended with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { pollUntil } from '../helpers/deadline.js';

/** A zone where it is day now, so "today" has hours of readings whenever the test runs. */
const ZONE =
  ['UTC', 'Asia/Tokyo', 'America/New_York', 'Asia/Kolkata'].find((timeZone) => {
    const hour = Number(new Intl.DateTimeFormat('en-GB', { timeZone, hour: 'numeric', hourCycle: 'h23' }).format());
    return hour >= 4 && hour < 22;
  }) ?? 'UTC';

const started = Date.now();
const server = await startTestServer({
  bundled: ['simulator'],
  config: { site: { timeZone: ZONE, latitude: 40, longitude: 0 }, energy: { resetPeriod: 'daily' } },
  plugins: [
    {
      id: 'sim',
      plugin: 'simulator',
      devices: ['inverter_1', 'inverter_2', 'battery_1'],
      config: { backfill_days: 2, pollIntervalMs: 1000, demoForecast: false, demoPrices: false },
    },
  ],
});

interface Progress {
  what: string;
  done: number;
  total: number;
  unit: string | null;
  eta: string | null;
}

async function progressOfSim(): Promise<Progress | null | undefined> {
  const res = await server.api('/api/v1/plugins');
  assert.equal(res.status, 200);
  const list = (await res.json()) as Array<{ id: string; progress?: Progress | null }>;
  return list.find((p) => p.id === 'sim')?.progress;
}

async function liveValue(topic: string): Promise<number | null> {
  const res = await server.api(`/api/v1/metrics?topic=${topic}`);
  assert.equal(res.status, 200);
  const [entry] = (await res.json()) as Array<{ value: number | null }>;
  return entry?.value ?? null;
}

async function history(topic: string, query: string): Promise<Array<[string, number | null]>> {
  const res = await server.api(`/api/v1/history?topic=${topic}&${query}`);
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { points: Array<[string, number | null]> }).points;
}

// One test: the three promises are about the same first minute of the same server.
test("the demo's first minute: progress to the end, today's real totals, no jump in the battery", async () => {
  // Today's totals are in the first answers: today is recorded first and counted in the live totals.
  let firstLoad: number | null = null;
  await pollUntil(
    async () => {
      firstLoad = await liveValue('total/load_energy');
      return { done: typeof firstLoad === 'number' && firstLoad > 0, seen: firstLoad };
    },
    "a live total/load_energy above 0 (today's backfilled hours)",
    { ms: 30_000, everyMs: 200 },
  );

  // The progress is in the plugin status while the backfill runs, and reaches the end.
  const seen: Progress[] = [];
  await pollUntil(
    async () => {
      const progress = await progressOfSim();
      if (progress) seen.push(progress);
      return { done: progress !== null && progress !== undefined && progress.done >= progress.total, seen: progress };
    },
    'the backfill progress at 2 of 2 days in GET /api/v1/plugins',
    { ms: 120_000, everyMs: 100 },
  );
  assert.ok(seen.length > 0);
  for (const p of seen) {
    assert.equal(p.what, "Recording the demo's last 2 days");
    assert.equal(p.total, 2);
    assert.equal(p.unit, 'days');
  }
  seen.slice(1).forEach((p, i) => assert.ok(p.done >= seen[i]!.done, `progress went back: ${JSON.stringify(seen)}`));
  assert.equal(seen.at(-1)!.eta, null, 'no end estimated once done');

  // Today's live total is what today's recorded power adds up to (the page's figure), live part included.
  const midnight = startOfToday();
  const now = Date.now();
  const load = await liveValue('total/load_energy');
  const minutes = await history(
    'total/load_power',
    `from=${new Date(midnight).toISOString()}&to=${new Date(now).toISOString()}&group_by=1m`,
  );
  const kwh = minutes.reduce((sum, [, watts]) => sum + (watts ?? 0) / 1000 / 60, 0);
  assert.ok(typeof load === 'number' && kwh > 0.1, `today has load: ${kwh} kWh recorded, live ${load}`);
  assert.ok(
    Math.abs(load - kwh) <= 0.03 * kwh + 0.05,
    `the live total/load_energy ${load} kWh is today's recorded ${kwh.toFixed(3)} kWh (${ZONE})`,
  );

  // The battery's charge, reading by reading around the start: the live values go on from the backfill's last.
  let socs: Array<[string, number]> = [];
  await pollUntil(async () => {
    socs = (
      await history(
        'total/battery_state_of_charge',
        `from=${new Date(started - 120_000).toISOString()}&to=${new Date(Date.now()).toISOString()}&group_by=10s`,
      )
    ).filter((p): p is [string, number] => p[1] !== null);
    const before = socs.filter(([t]) => Date.parse(t) < started).length;
    const after = socs.filter(([t]) => Date.parse(t) > started + 2000).length;
    return { done: before > 0 && after > 0, seen: { before, after } };
  }, "the battery's charge in history from the backfill's last readings and from the live ones");
  for (let i = 1; i < socs.length; i++) {
    const change = Math.abs(socs[i]![1] - socs[i - 1]![1]);
    // 10 kWh at most 5 kW: 0.14 % in 10 s, 0.1 of rounding.
    if (change > 0.3)
      assert.fail(`the charge jumped ${change} % from ${socs[i - 1]!.join(' ')} to ${socs[i]!.join(' ')}`);
  }

  function startOfToday(): number {
    const parts = new Intl.DateTimeFormat('en-GB', {
      timeZone: ZONE,
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      hourCycle: 'h23',
    }).formatToParts(new Date());
    const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
    const t = Date.now();
    return Math.floor(t / 1000) * 1000 - ((part('hour') * 60 + part('minute')) * 60 + part('second')) * 1000;
  }
});
