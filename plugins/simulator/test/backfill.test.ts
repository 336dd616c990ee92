import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configSchema, createSiteModel } from '../src/config.js';
import { recordedInverterValues } from '../src/declarations.js';
import { DEFAULT_SETTINGS } from '../src/persisted.js';
import { initialState, step } from '../src/site.js';
import { BERLIN, DAY, MIDSUMMER, startSimulator } from './helpers.js';

const RECORDED = ['pv_power', 'load_power', 'grid_power', 'battery_power', 'temperature'];
const STEP = 10_000;
/** Start time off the 10-s grid, to see the readings land on it. */
const STARTED_AT = MIDSUMMER + 4_321;

/** The site of the tests' default setup run straight through, oldest reading first: what the backfill must record. */
function straightRun(days: number, end: number): { readings: Map<string, Array<[number, number]>>; soc: number } {
  const model = createSiteModel({
    config: configSchema.parse({}),
    latitude: BERLIN.latitude,
    longitude: BERLIN.longitude,
    timeZone: BERLIN.timeZone,
    inverterCount: 2,
    batteryCount: 1,
  });
  const settings = [DEFAULT_SETTINGS, DEFAULT_SETTINGS];
  const readings = new Map<string, Array<[number, number]>>();
  let state = initialState(model, end - days * DAY - STEP, 60);
  while (state.time + STEP < end) {
    const result = step(model, state, STEP, settings);
    state = result.state;
    result.readings.inverters.forEach((inverter, i) => {
      for (const [name, value] of Object.entries(recordedInverterValues(inverter))) {
        const topic = `inverter_${i + 1}/${name}`;
        if (!readings.has(topic)) readings.set(topic, []);
        readings.get(topic)!.push([result.state.time, value]);
      }
    });
  }
  return { readings, soc: state.soc };
}

describe('history backfill', () => {
  it('records N days of 10-s readings, newest day first, exactly as the model runs straight through', async () => {
    const host = await startSimulator({ now: STARTED_AT, config: { backfill_days: 2 } });
    await host.runJob('backfill');
    const end = Math.floor(STARTED_AT / STEP) * STEP;
    const topics = [...host.recorded.keys()].sort();
    assert.deepEqual(topics, ['inverter_1', 'inverter_2'].flatMap((d) => RECORDED.map((m) => `${d}/${m}`)).sort());
    // Today first: the first recorded reading is the site's local midnight (Berlin, 22:00 UTC the day before).
    const first = host.recorded.get('inverter_1/pv_power')![0]![0];
    assert.equal(new Date(first).toISOString(), '2026-06-20T22:00:00.000Z', 'the first hour recorded is today');
    // Every day joins the next: the days, put in time order, are one straight run of the model.
    const straight = straightRun(2, end);
    for (const topic of topics) {
      const readings = [...host.recorded.get(topic)!].sort((a, b) => a[0] - b[0]);
      assert.equal(readings.length, 2 * 8640, topic);
      const expected = straight.readings.get(topic)!;
      readings.forEach(([time, value], i) => {
        if (time !== expected[i]![0] || value !== expected[i]![1])
          assert.fail(
            `${topic}: reading ${i} at ${new Date(time).toISOString()} is ${value}, the straight run's ${expected[i]![1]}`,
          );
      });
    }
    assert.ok(host.recorded.get('inverter_1/pv_power')!.some(([, w]) => w > 1000));

    // The progress reports, through ctx.status.progress (logged by the core), end at the total.
    const progress = host.logs.filter((line) => line.startsWith("info: Recording the demo's last 2 days"));
    assert.ok(progress.length >= 2, progress.join('\n'));
    assert.match(progress.at(-1)!, /2 of 2 days, done/);
    assert.ok(!host.jobs.has('backfill'), 'the job unschedules itself when done');

    // The live simulation goes on from where the backfill ended: no jump in the battery's charge.
    assert.equal((host.store.get('backfill') as { end: { soc: number } }).end.soc, straight.soc);
    host.setTime(end + 5_000);
    await host.runJob('poll');
    const soc = host.value('battery_1/state_of_charge') as number;
    assert.ok(
      Math.abs(soc - straight.soc) <= 0.15,
      `the live charge ${soc} % goes on from the backfill's ${straight.soc} %`,
    );
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

  it('resumes the progress an earlier version saved (one span, oldest first) without gaps', async () => {
    const end = Math.floor(STARTED_AT / STEP) * STEP;
    const model = createSiteModel({
      config: configSchema.parse({}),
      ...BERLIN,
      inverterCount: 2,
      batteryCount: 1,
    });
    const next = end - DAY / 2;
    const saved = { from: end - DAY, to: end, next, state: initialState(model, next - STEP, 50), done: false };
    const host = await startSimulator({ now: STARTED_AT, config: { backfill_days: 1 }, store: { backfill: saved } });
    await host.runJob('backfill');
    const times = host.recorded.get('inverter_1/pv_power')!.map(([t]) => t);
    assert.equal(times.length, 4320);
    assert.equal(times[0], next);
    assert.equal(times.at(-1), end - STEP);
    await host.stop();
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
