import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DAY, MIDSUMMER, startSimulator } from './helpers.js';

const RECORDED = ['pv_power', 'load_power', 'grid_power', 'battery_power', 'temperature'];
const STEP = 10_000;
/** Start time off the 10-s grid, to see the readings land on it. */
const STARTED_AT = MIDSUMMER + 4_321;

describe('history backfill', () => {
  it('records N days of 10-s readings of every recorded inverter metric, ending at the start', async () => {
    const host = await startSimulator({ now: STARTED_AT, config: { backfill_days: 2 } });
    await host.runJob('backfill');
    const end = Math.floor(STARTED_AT / STEP) * STEP;
    const topics = [...host.recorded.keys()].sort();
    assert.deepEqual(topics, ['inverter_1', 'inverter_2'].flatMap((d) => RECORDED.map((m) => `${d}/${m}`)).sort());
    for (const topic of topics) {
      const readings = host.recorded.get(topic)!;
      assert.equal(readings.length, 2 * 8640, topic);
      assert.equal(readings[0]![0], end - 2 * DAY);
      readings.forEach(([time], i) => {
        if (time !== end - 2 * DAY + i * STEP) assert.fail(`${topic}: reading ${i} at ${new Date(time).toISOString()}`);
      });
    }
    // The same model as the live poll: balanced, PV by day only.
    const pv = host.recorded.get('inverter_1/pv_power')!;
    const load = host.recorded.get('inverter_1/load_power')!;
    const grid = host.recorded.get('inverter_1/grid_power')!;
    const battery = host.recorded.get('inverter_1/battery_power')!;
    pv.forEach(([, value], i) => {
      if (load[i]![1] !== value + grid[i]![1] - battery[i]![1]) assert.fail(`unbalanced at ${i}`);
    });
    assert.ok(pv.some(([, w]) => w > 1000) && pv.some(([, w]) => w === 0));

    const progress = host.logs.filter((line) => line.startsWith('info: backfill') && line.includes('percent'));
    assert.deepEqual(
      progress.map((line) => (JSON.parse(line.slice(line.indexOf('{'))) as { percent: number }).percent),
      [10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
    );
    assert.ok(!host.jobs.has('backfill'), 'the job unschedules itself when done');
    await host.stop();

    const again = await startSimulator({
      now: STARTED_AT + DAY,
      config: { backfill_days: 2 },
      store: Object.fromEntries(host.store),
    });
    assert.ok(!again.jobs.has('backfill'), 'a second start does not backfill again');
    assert.equal(again.recorded.size, 0);
    await again.stop();
  });

  it('does nothing with backfill_days 0', async () => {
    const host = await startSimulator({ config: { backfill_days: 0 } });
    assert.ok(!host.jobs.has('backfill'));
    await host.runJob('poll');
    assert.equal(host.recorded.size, 0);
    await host.stop();
  });

  it('stops when the plugin stops and resumes at the next start without leaving gaps', async () => {
    const host = await startSimulator({ now: STARTED_AT, config: { backfill_days: 3 } });
    const running = host.runJob('backfill');
    // The job yields to the event loop after every hour it records; stop it once it has recorded some.
    // (Its store writes go to SQLite, as in the server: how many turns that takes is not fixed.)
    while (!host.recorded.has('inverter_1/pv_power')) await new Promise((resolve) => setImmediate(resolve));
    await host.stop();
    await running;
    const firstCount = host.recorded.get('inverter_1/pv_power')?.length ?? 0;
    assert.ok(firstCount > 0 && firstCount < 3 * 8640, `recorded ${firstCount} before stopping`);

    const again = await startSimulator({
      now: STARTED_AT + 60_000,
      config: { backfill_days: 3 },
      store: Object.fromEntries(host.store),
    });
    await again.runJob('backfill');
    const times = new Set(
      [...(host.recorded.get('inverter_1/pv_power') ?? []), ...again.recorded.get('inverter_1/pv_power')!].map(
        ([t]) => t,
      ),
    );
    const end = Math.floor(STARTED_AT / STEP) * STEP;
    assert.equal(times.size, 3 * 8640);
    assert.ok(times.has(end - 3 * DAY) && times.has(end - STEP) && !times.has(end));
    await again.stop();
  });
});
