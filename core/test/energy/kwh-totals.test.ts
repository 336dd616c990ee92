import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ManualClock } from '../../src/clock.js';
import { migrate, openDatabase } from '../../src/db.js';
import { DbWriter } from '../../src/db-writer.js';
import { EnergyTotals, energyMigrations, periodStart, type ResetPeriod } from '../../src/energy/kwh-totals.js';
import { TopicRegistry, type Tick, type TopicMeta } from '../../src/topics/registry.js';
import { TotalsDeriver } from '../../src/topics/power-totals.js';
import { pollUntil } from '../helpers/deadline.js';
import { tempDir } from '../helpers/tmp.js';
import { topicMeta } from '../helpers/topics.js';

const BERLIN = 'Europe/Berlin';

const meta = (topic: string): TopicMeta => topicMeta(topic);

async function site(
  file: string,
  start: number,
  period: ResetPeriod = 'daily',
  saveIntervalMs = 60_000,
  writer?: DbWriter,
) {
  const clock = new ManualClock(start);
  const db = await openDatabase(file);
  await migrate(db, energyMigrations);
  const registry = new TopicRegistry(clock);
  new TotalsDeriver(registry).start();
  for (const t of ['inverter_1/pv_power', 'inverter_1/grid_power', 'inverter_1/battery_power', 'inverter_1/load_power'])
    registry.define(meta(t));
  registry.define(topicMeta('inverter_1/temperature', { unit: '°C' }));
  const energy = new EnergyTotals(registry, db, clock, period, BERLIN, saveIntervalMs, writer);
  const stop = await energy.start();
  const publish = async (values: Record<string, number>) => {
    const tick = new Promise<Tick>((r) => registry.once('tick', r));
    for (const [t, v] of Object.entries(values)) registry.publish(registry.get(t)!, v);
    await tick;
  };
  /** Publishes the same values every minute until `until`. */
  const hold = async (values: Record<string, number>, until: number) => {
    while (clock.now() < until) {
      clock.set(Math.min(until, clock.now() + 60_000));
      await publish(values);
    }
  };
  const kwh = (name: string) => registry.visibleValue(registry.get(`total/${name}`)!);
  const close = async () => {
    await stop();
    await db.close();
  };
  return { clock, publish, hold, kwh, energy, close, registry, db, stop };
}

test('periods start at local midnight, Monday for weekly, the 1st for monthly', () => {
  const t = Date.parse('2026-11-19T15:00:00Z'); // a Thursday
  assert.equal(new Date(periodStart(t, 'daily', BERLIN)).toISOString(), '2026-11-18T23:00:00.000Z');
  assert.equal(new Date(periodStart(t, 'weekly', BERLIN)).toISOString(), '2026-11-15T23:00:00.000Z');
  assert.equal(new Date(periodStart(t, 'monthly', BERLIN)).toISOString(), '2026-10-31T23:00:00.000Z');
});

test('power is integrated into kWh; export and import are split by sign', async () => {
  const s = await site(join(tempDir(), 'h.db'), Date.parse('2026-06-10T10:00:00Z'));
  await s.publish({ 'inverter_1/pv_power': 3000, 'inverter_1/grid_power': -1000 });
  for (let i = 0; i < 360; i++) {
    s.clock.advance(10_000);
    await s.publish({ 'inverter_1/pv_power': 3000, 'inverter_1/grid_power': -1000 });
  }
  assert.equal(s.kwh('pv_energy'), 3, '3 kW for one hour');
  assert.equal(s.kwh('grid_energy_out'), 1);
  assert.equal(s.kwh('grid_energy_in'), 0);
  await s.close();
});

test('a daily total runs 25 hours on the autumn DST day and resets at local midnight', async () => {
  // 2026-10-25 in Berlin: clocks go back at 03:00 CEST, so the local day is 25 h long.
  const dayStart = Date.parse('2026-10-24T22:00:00Z'); // 00:00 CEST
  const nextDay = Date.parse('2026-10-25T23:00:00Z'); // 00:00 CET
  const s = await site(join(tempDir(), 'h.db'), dayStart);
  await s.publish({ 'inverter_1/pv_power': 1000 });
  await s.hold({ 'inverter_1/pv_power': 1000 }, nextDay - 60_000);
  assert.equal(s.kwh('pv_energy'), 24.983, 'one kW for 25 h minus the last minute');
  s.clock.advance(90_000); // 30 s past local midnight
  await s.publish({ 'inverter_1/pv_power': 1000 });
  assert.equal(s.kwh('pv_energy'), 0.008, 'only the 30 s after midnight count in the new day');
  await s.close();
});

test('the spring DST week still resets on Monday local midnight', async () => {
  // Sunday 2026-03-29 loses an hour in Berlin; the next week starts Monday 2026-03-30 00:00 CEST.
  const s = await site(join(tempDir(), 'h.db'), Date.parse('2026-03-29T21:00:00Z'), 'weekly');
  await s.publish({ 'inverter_1/pv_power': 2000 });
  await s.hold({ 'inverter_1/pv_power': 2000 }, Date.parse('2026-03-29T21:59:00Z'));
  assert.equal(s.kwh('pv_energy'), 1.967);
  await s.hold({ 'inverter_1/pv_power': 2000 }, Date.parse('2026-03-29T22:01:00Z'));
  assert.equal(s.kwh('pv_energy'), 0.033, 'reset at 00:00 CEST = 22:00 UTC, one minute counted');
  await s.close();
});

test('totals survive a restart within the period, and restart from zero in a new one', async () => {
  const file = join(tempDir(), 'h.db');
  const start = Date.parse('2026-06-10T10:00:00Z');
  const a = await site(file, start);
  await a.publish({ 'inverter_1/pv_power': 6000 });
  await a.hold({ 'inverter_1/pv_power': 6000 }, start + 30 * 60_000);
  await a.close();
  const b = await site(file, start + 31 * 60_000);
  assert.equal(b.kwh('pv_energy'), 3);
  await b.close();
  const c = await site(file, start + 24 * 3_600_000);
  assert.equal(c.kwh('pv_energy'), 0);
  await c.close();
});

test('a new time zone applies at once: the next reset comes at the new local midnight, the kWh so far kept', async () => {
  // 22:00 in Berlin, 16:00 in New York.
  const s = await site(join(tempDir(), 'h.db'), Date.parse('2026-06-10T20:00:00Z'));
  await s.publish({ 'inverter_1/pv_power': 1000 });
  await s.hold({ 'inverter_1/pv_power': 1000 }, Date.parse('2026-06-10T21:00:00Z'));
  assert.equal(s.kwh('pv_energy'), 1);
  s.energy.reconfigure({ period: 'daily', timeZone: 'America/New_York' });
  assert.equal(new Date(s.energy.currentPeriod.start).toISOString(), '2026-06-10T04:00:00.000Z', 'the New York day');
  // Berlin's midnight passes without a reset...
  await s.hold({ 'inverter_1/pv_power': 1000 }, Date.parse('2026-06-10T22:30:00Z'));
  assert.equal(s.kwh('pv_energy'), 2.5);
  // ...New York's does reset it.
  await s.hold({ 'inverter_1/pv_power': 1000 }, Date.parse('2026-06-11T04:30:00Z'));
  assert.equal(s.kwh('pv_energy'), 0.5);
  await s.close();
});

test('a new reset period applies at once', async () => {
  const s = await site(join(tempDir(), 'h.db'), Date.parse('2026-06-10T10:00:00Z'), 'monthly');
  assert.deepEqual(s.energy.reset, { period: 'monthly', timeZone: BERLIN });
  s.energy.reconfigure({ period: 'daily', timeZone: BERLIN });
  assert.deepEqual(s.energy.reset, { period: 'daily', timeZone: BERLIN }, 'what past readings count by');
  assert.equal(new Date(s.energy.currentPeriod.start).toISOString(), '2026-06-09T22:00:00.000Z');
  assert.equal(new Date(s.energy.currentPeriod.end).toISOString(), '2026-06-10T22:00:00.000Z');
  await s.close();
});

test('six totals, each with its name and unit: battery and grid split into in and out by sign', async () => {
  const s = await site(join(tempDir(), 'h.db'), Date.parse('2026-06-10T10:00:00Z'));
  const names = {
    pv_energy: 'PV energy',
    load_energy: 'Load energy',
    battery_energy_in: 'Battery energy in',
    battery_energy_out: 'Battery energy out',
    grid_energy_in: 'Grid energy in',
    grid_energy_out: 'Grid energy out',
  };
  for (const [name, displayName] of Object.entries(names)) {
    const state = s.registry.get(`total/${name}`);
    assert.equal(state?.meta.name, displayName, `total/${name}`);
    assert.equal(state?.meta.unit, 'kWh', `total/${name}`);
  }
  // An hour of charging at 2 kW and importing 500 W, then an hour of discharging at 1 kW and exporting 250 W.
  const charging = { 'inverter_1/battery_power': 2000, 'inverter_1/grid_power': 500, 'inverter_1/load_power': 800 };
  await s.publish(charging);
  await s.hold(charging, Date.parse('2026-06-10T11:00:00Z'));
  const discharging = {
    'inverter_1/battery_power': -1000,
    'inverter_1/grid_power': -250,
    'inverter_1/load_power': 800,
  };
  await s.publish(discharging);
  await s.hold(discharging, Date.parse('2026-06-10T12:00:00Z'));
  assert.equal(s.kwh('battery_energy_in'), 2);
  assert.equal(s.kwh('battery_energy_out'), 1);
  assert.equal(s.kwh('grid_energy_in'), 0.5);
  assert.equal(s.kwh('grid_energy_out'), 0.25);
  assert.equal(s.kwh('load_energy'), 1.6);
  assert.ok(Math.abs(s.energy.kwh('battery_energy_out')! - 1) < 1e-9, 'the unrounded figure, by name');
  assert.equal(s.energy.kwh('no_such_energy'), undefined);
  await s.close();
  assert.equal(s.registry.get('total/pv_energy'), undefined, 'stopped: the totals are gone from the registry');
});

test('power held for at most 5 minutes counts; across a longer gap nothing does', async () => {
  const start = Date.parse('2026-06-10T10:00:00Z');
  const s = await site(join(tempDir(), 'h.db'), start);
  await s.publish({ 'inverter_1/pv_power': 6000 });
  s.clock.set(start + 5 * 60_000);
  await s.publish({ 'inverter_1/pv_power': 6000 });
  assert.equal(s.kwh('pv_energy'), 0.5, 'a 5-minute gap counts');
  s.clock.advance(5 * 60_000 + 1);
  await s.publish({ 'inverter_1/pv_power': 6000 });
  assert.equal(s.kwh('pv_energy'), 0.5, 'a gap longer than 5 minutes does not');
  // A reading of another topic in the middle does not split a long gap into two short ones.
  s.clock.advance(4 * 60_000);
  await s.publish({ 'inverter_1/temperature': 30 });
  s.clock.advance(4 * 60_000);
  await s.publish({ 'inverter_1/pv_power': 6000 });
  assert.equal(s.kwh('pv_energy'), 0.5, 'eight minutes without a power reading');
  await s.close();
});

test('no power is assumed before the first reading', async () => {
  const start = Date.parse('2026-06-10T10:00:00Z');
  const s = await site(join(tempDir(), 'h.db'), start);
  s.clock.advance(60_000);
  await s.publish({ 'inverter_1/pv_power': 6000 });
  assert.equal(s.kwh('pv_energy'), 0);
  await s.close();
});

test('a clock set back keeps the total within the period and starts from zero before it', async () => {
  const dayStart = Date.parse('2026-06-09T22:00:00Z'); // 00:00 CEST
  const s = await site(join(tempDir(), 'h.db'), dayStart + 3_600_000);
  await s.publish({ 'inverter_1/pv_power': 1000 });
  await s.hold({ 'inverter_1/pv_power': 1000 }, dayStart + 2 * 3_600_000);
  assert.equal(s.kwh('pv_energy'), 1);
  s.clock.set(dayStart); // back to the very start of the same day
  await s.publish({ 'inverter_1/pv_power': 1000 });
  assert.equal(s.kwh('pv_energy'), 1, 'the same day: nothing counted, nothing lost');
  s.clock.set(dayStart - 60_000); // back into the day before
  await s.publish({ 'inverter_1/pv_power': 1000 });
  assert.equal(s.kwh('pv_energy'), 0, 'another day: its own total');
  assert.equal(s.energy.currentPeriod.start, dayStart - 24 * 3_600_000);
  await s.close();
});

test('a reading exactly at local midnight starts the new day', async () => {
  const midnight = Date.parse('2026-06-10T22:00:00Z'); // 00:00 CEST
  const s = await site(join(tempDir(), 'h.db'), midnight - 3 * 60_000);
  await s.publish({ 'inverter_1/pv_power': 1000 });
  await s.hold({ 'inverter_1/pv_power': 1000 }, midnight);
  assert.equal(s.kwh('pv_energy'), 0, 'the minutes before midnight belong to the day before');
  assert.equal(s.energy.currentPeriod.start, midnight);
  await s.close();
});

test('totals need the total/* power topics', async () => {
  const db = await openDatabase(join(tempDir(), 'h.db'));
  await migrate(db, energyMigrations);
  const clock = new ManualClock(Date.parse('2026-06-10T10:00:00Z'));
  const energy = new EnergyTotals(new TopicRegistry(clock), db, clock, 'daily', BERLIN);
  await assert.rejects(energy.start(), /^Error: total\/pv_power must be defined before energy totals start$/);
  await db.close();
});

test('totals are saved every save interval while running, not only at stop', async () => {
  const start = Date.parse('2026-06-10T10:00:00Z');
  const s = await site(join(tempDir(), 'h.db'), start, 'daily', 20);
  const saved = async (kwh: number, what: string) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const row = await s.db.get<{ kwh: number }>("SELECT kwh FROM energy_totals WHERE name = 'pv_energy'");
      if (row && Math.abs(row.kwh - kwh) < 1e-9) return;
      if (Date.now() > deadline) assert.fail(`${what}: pv_energy never saved as ${kwh} kWh (last ${row?.kwh})`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  await s.publish({ 'inverter_1/pv_power': 6000 });
  await s.hold({ 'inverter_1/pv_power': 6000 }, start + 10 * 60_000);
  await saved(1, 'the first save');
  await s.hold({ 'inverter_1/pv_power': 6000 }, start + 20 * 60_000);
  await saved(2, 'a later save');
  await s.close();
});

test('a total a client has seen is on disk before any write queued after it', async () => {
  // The server's one write path runs the totals' saves and the audit's entries in order, and
  // a write is answered once its entry is on disk. A total published while a save waits must
  // be in a save queued before the next write, or a kill right after that write's answer
  // restarts the total below what a client saw (Home Assistant reads a drop as a new meter).
  const start = Date.parse('2026-06-10T10:00:00Z');
  const writer = new DbWriter(() => start);
  const s = await site(join(tempDir(), 'h.db'), start, 'daily', 60_000, writer);
  await s.publish({ 'inverter_1/pv_power': 6000 });
  await writer.run('the first save done', () => Promise.resolve());
  // Another write holds the write path: the next save waits behind it.
  let release = () => undefined as void;
  void writer.run('a slow write', () => new Promise<void>((resolve) => (release = resolve)));
  for (let minute = 0; minute < 4; minute++) {
    s.clock.advance(60_000);
    await s.publish({ 'inverter_1/pv_power': 6000 });
  }
  assert.equal(writer.queued, 2, 'one save waits behind the slow write, however many ticks came');
  assert.equal(s.kwh('pv_energy'), 0.4, 'the total a client sees');
  const audit = writer.run('an audit entry', () => Promise.resolve());
  release();
  await audit;
  const row = await s.db.get<{ kwh: number }>("SELECT kwh FROM energy_totals WHERE name = 'pv_energy'");
  assert.equal(row?.kwh, 0.4, 'saved before the audit entry that came after it');
  await s.close();
});

test("a first start's backfill adds the period's rises before counting began, published at once", async () => {
  const start = Date.parse('2026-06-10T10:00:00Z'); // the Berlin day began at 2026-06-09T22:00Z
  const s = await site(join(tempDir(), 'h.db'), start);
  const at = (iso: string) => Date.parse(iso);
  s.energy.addPast([
    [
      'pv_energy',
      [
        [at('2026-06-09T21:00:00Z'), 4], // the day before: only the point to rise from
        [at('2026-06-09T23:00:00Z'), 4.5], // +0.5
        [at('2026-06-10T01:00:00Z'), 5], // +0.5
        [at('2026-06-10T02:00:00Z'), 0.3], // a drop: a new count, +0.3
        [at('2026-06-10T01:30:00Z'), 0.2], // earlier than the last: a new count, +0.2
        [at('2026-06-10T03:00:00Z'), 0.6], // +0.4
        [at('2026-06-10T04:00:00Z'), 0.6], // no rise
        [at('2026-06-10T04:00:00Z'), 0.1], // a drop at the same time: a new count, +0.1
        [at('2026-06-10T04:00:00Z'), 0.2], // not later than the last: a new count, +0.2
      ],
    ],
    ['no_such_energy', [[at('2026-06-10T01:00:00Z'), 9]]],
  ]);
  assert.equal(s.kwh('pv_energy'), 2.2, 'shown before the next tick');
  assert.equal(s.kwh('load_energy'), 0, 'other totals untouched');
  // Counting begins: later past points (a backfill resumed) are not added again.
  await s.publish({ 'inverter_1/pv_power': 1000 });
  s.clock.advance(60_000);
  await s.publish({ 'inverter_1/pv_power': 1000 });
  s.energy.addPast([
    [
      'pv_energy',
      [
        [start, 2.5], // where counting began: +2.3
        [start + 30_000, 3], // after it: not added
      ],
    ],
  ]);
  assert.equal(s.kwh('pv_energy'), 4.517, 'the backfill up to where counting began, and one minute at 1 kW');
  await s.close();
});

test("a backfill counts from the period's first instant, not its end", async () => {
  const s = await site(join(tempDir(), 'h.db'), Date.parse('2026-06-10T10:00:00Z'));
  const { start, end } = s.energy.currentPeriod;
  s.energy.addPast([['pv_energy', [[start, 0.5]]]]);
  assert.equal(s.kwh('pv_energy'), 0.5, 'a point at the period start counts');
  s.energy.addPast([['pv_energy', [[end, 0.1]]]]);
  assert.equal(s.kwh('pv_energy'), 0.5, 'a point at its end belongs to the next');
  await s.close();
});

test('a backfill is ignored once the period has saved totals: they hold what it added', async () => {
  const file = join(tempDir(), 'h.db');
  const start = Date.parse('2026-06-10T10:00:00Z');
  const a = await site(file, start);
  a.energy.addPast([['pv_energy', [[start - 3_600_000, 1.25]]]]);
  assert.equal(a.kwh('pv_energy'), 1.25);
  await a.close();
  const b = await site(file, start + 60_000);
  b.energy.addPast([['pv_energy', [[start - 1_800_000, 3]]]]);
  assert.equal(b.kwh('pv_energy'), 1.25, 'the saved total, not the backfill added again');
  // The period ends while running: the new one's totals were never saved, yet counting began in it.
  await b.publish({ 'inverter_1/pv_power': 1000 });
  await b.hold({ 'inverter_1/pv_power': 1000 }, start + 13 * 3_600_000);
  b.energy.addPast([['pv_energy', [[b.energy.currentPeriod.start + 60_000, 7]]]]);
  assert.ok(Number(b.kwh('pv_energy')) < 7, `the new period's count, without the backfill: ${b.kwh('pv_energy')}`);
  await b.close();
  // A start in a later period, with only an earlier period's totals saved: its backfill counts.
  const c = await site(file, start + 3 * 24 * 3_600_000);
  c.energy.addPast([['pv_energy', [[start + 3 * 24 * 3_600_000 - 3_600_000, 2]]]]);
  assert.equal(c.kwh('pv_energy'), 2);
  await c.close();
});

test('a save that fails says so in its status until a save succeeds', async () => {
  const start = Date.parse('2026-06-10T10:00:00Z');
  const s = await site(join(tempDir(), 'h.db'), start, 'daily', 50);
  await s.publish({ 'inverter_1/pv_power': 1000 });
  await s.energy.save();
  assert.equal(s.energy.trouble, null);
  await s.db.exec('ALTER TABLE energy_totals RENAME TO energy_totals_away');
  // Each tick asks for a save, which fails without its table.
  await pollUntil(
    async () => {
      s.clock.advance(60_000);
      await s.publish({ 'inverter_1/pv_power': 1000 });
      const t = s.energy.trouble;
      return { done: /^energy totals could not be saved: .*no such table/.test(t ?? ''), seen: t };
    },
    'the status of a save without its table',
    { ms: 10_000, everyMs: 20 },
  );
  await s.db.exec('ALTER TABLE energy_totals_away RENAME TO energy_totals');
  // No tick comes (the power held still): the interval's save retries.
  await pollUntil(
    () => Promise.resolve({ done: s.energy.trouble === null, seen: s.energy.trouble }),
    "the interval's save with the table back",
    { ms: 10_000, everyMs: 20 },
  );
  const row = await s.db.get<{ kwh: number }>("SELECT kwh FROM energy_totals WHERE name = 'pv_energy'");
  assert.ok(row && row.kwh > 0, 'the totals saved again');
  await s.close();
});
