// The demo's evening car and the home battery kept out of the car (issue 42): the real server
// on a manual clock with the checkout's plugins.json: the simulator, the planner in dry-run
// and the ocpp plugin running its demo charge point (`demoChargePoint`: the emulated charge
// point in the plugin's process, over loopback, with no chargers entry and no password to
// give). The car plugs in at the evening hour of the site's zone and charges in the mode set;
// while it draws, the simulator's battery is held (battery control `Hold`, written via ocpp
// and audited) unless the owner allows battery-to-car, and back to Normal after; with the
// planner active the battery is the planner's alone.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import { pollUntil } from '../helpers/deadline.js';
import { REPO_ROOT, startTestServer, type TestServer } from '../helpers/server.js';
import { audit } from '../drivers/battery-control.js';
import { write } from '../drivers/driver-api.js';
import { valueOf, valueWhen } from './ocpp-helpers.js';

/** 17:59 in Berlin, a winter evening: the car is not home yet. */
const BEFORE = Date.parse('2026-12-21T16:59:00Z');
const MINUTE = 60_000;
const MODE = 'inverter_1/battery_control_mode';

interface Entry {
  id: string;
  plugin: string;
  config?: Record<string, unknown>;
}

/**
 * The server on the checkout's plugins.json (the simulator, the planner in dry-run, the ocpp
 * demo charger), changed only for a test's pace: no backfill, polls and the planner's check
 * every second, the rules deciding at each tick, heartbeats every hour (the charger is not
 * silent across the clock's steps) and the demo car's hours.
 */
async function startDemo(clock: ManualClock, demoCar: Record<string, unknown> = {}): Promise<TestServer> {
  const { plugins } = JSON.parse(readFileSync(join(REPO_ROOT, 'plugins.json'), 'utf8')) as { plugins: Entry[] };
  const pace: Record<string, Record<string, unknown>> = {
    simulator: { backfill_days: 0, pollIntervalMs: 1000, initialSoc: 80 },
    planner: { checkIntervalMs: 1000 },
    ocpp: { decideIntervalMs: 0, heartbeatIntervalS: 3600, demoCar },
  };
  return startTestServer({
    clock,
    bundled: plugins.map((p) => p.plugin),
    config: { site: { timeZone: 'Europe/Berlin', latitude: 52.5, longitude: 13.4 } },
    plugins: plugins.map((p) => ({ ...p, config: { ...p.config, ...pace[p.plugin] } })),
  });
}

async function set(server: TestServer, topic: string, value: string): Promise<void> {
  const answer = await write(server, topic, value);
  assert.equal(answer.status, 200, `${topic} = ${value}: ${answer.body}`);
}

/**
 * The demo on a clock at {@link BEFORE}: once the demo charge point is connected `topic` is set
 * to `value`, then the clock moves on a minute and the demo car plugs in (18:00).
 */
async function carHomeAfter(topic: string, value: string): Promise<{ clock: ManualClock; server: TestServer }> {
  const clock = new ManualClock(BEFORE);
  const server = await startDemo(clock);
  await valueWhen(server, 'charger_1/online', (v) => v === true, 'the demo charge point connected');
  await set(server, topic, value);
  clock.set(BEFORE + MINUTE);
  await valueWhen(server, 'charger_1/car_connected', (v) => v === true, 'the demo car plugged in (18:00)');
  return { clock, server };
}

/** The ocpp plugin's battery control writes in the audit, oldest first: `Hold ok`. */
async function batteryWrites(server: TestServer): Promise<string[]> {
  return (await audit(server))
    .filter((e) => e.topic === MODE && e.via === 'ocpp')
    .reverse()
    .map((e) => `${e.new_value} ${e.result}`);
}

/** The battery stays in Normal over 30 looks across three rule ticks (the rules decide each second). */
async function staysNormal(server: TestServer, why: string): Promise<void> {
  let seen = 0;
  await pollUntil(
    async () => {
      const mode = await valueOf(server, MODE);
      if (mode !== 'Normal') throw new Error(`the battery went to ${String(mode)} although ${why}`);
      return { done: ++seen >= 30, seen: mode };
    },
    `the battery in Normal for 30 looks (${why})`,
    { ms: 20_000, everyMs: 100 },
  );
}

test('the demo car: charger_1 needs no setup, its car plugs in at 18:00, charges in the mode set and leaves', async () => {
  const clock = new ManualClock(BEFORE);
  const server = await startDemo(clock, { plugInAt: '18:00', unplugAt: '18:04' });
  await valueWhen(server, 'charger_1/online', (v) => v === true, 'the demo charge point connected');
  assert.equal(await valueOf(server, 'charger_1/car_connected'), false, 'no car before 18:00');
  assert.equal(await valueOf(server, 'charger_1/mode'), 'planned', 'the demo charger starts in planned');
  const form = (await (await server.api('/api/v1/plugins/ocpp/config')).json()) as { config: object };
  assert.ok(!('chargers' in form.config), 'no chargers entry, no password to give');
  assert.equal(await valueOf(server, 'planner_1/mode'), 'dry-run');

  clock.set(BEFORE + MINUTE);
  await valueWhen(server, 'charger_1/car_connected', (v) => v === true, 'the car plugged in at 18:00');
  // Planned, with the planner in dry-run: no plan, so min+pv's minimum (and the reason says so).
  await valueWhen(server, 'charger_1/current_limit', (v) => v === 6, '6 A with no plan');
  await valueWhen(server, 'charger_1/status', (v) => v === 'Charging', 'charging');
  await set(server, 'charger_1/trigger_message', 'MeterValues');
  const soc = Number(await valueWhen(server, 'charger_1/vehicle_soc', (v) => typeof v === 'number', 'the car SoC'));
  assert.ok(soc >= 40 && soc <= 60, `the car comes home at 40 to 60 %: ${soc}`);
  await valueWhen(server, 'charger_1/power', (v) => v === 6 * 3 * 230, 'drawing 6 A on 3 phases');
  await valueWhen(server, 'planner_1/car_plan', (v) => /^charger_1: /.test(String(v)), 'the planner planning the car');

  await set(server, 'charger_1/mode', 'now');
  await valueWhen(server, 'charger_1/current_limit', (v) => v === 16, '16 A in now');
  await set(server, 'charger_1/trigger_message', 'MeterValues');
  await valueWhen(server, 'charger_1/power', (v) => v === 16 * 3 * 230, 'drawing 16 A on 3 phases');

  clock.set(BEFORE + 5 * MINUTE);
  await valueWhen(server, 'charger_1/car_connected', (v) => v === false, 'the car gone at the unplug time');
});

test('the home battery is held while the car draws in now, back to Normal after; left alone when allowed or set by hand', async () => {
  const { clock, server } = await carHomeAfter('charger_1/mode', 'off');
  assert.equal(await valueOf(server, MODE), 'Normal', 'the battery in Normal while the car waits (mode off)');

  await set(server, 'charger_1/mode', 'now');
  await valueWhen(server, 'charger_1/status', (v) => v === 'Charging', 'charging');
  await valueWhen(server, MODE, (v) => v === 'Hold', 'the battery held while the car draws');
  await valueWhen(server, 'charger_1/reason', (v) => /home battery on Hold/.test(String(v)), 'the reason');
  // The hold is a lease of 30 minutes on the battery: written again after 10.
  clock.set(BEFORE + 12 * MINUTE);
  await pollUntil(async () => {
    const writes = await batteryWrites(server);
    return { done: writes.length === 2, seen: writes };
  }, 'the hold renewed after 10 minutes');

  await set(server, 'charger_1/mode', 'off');
  await valueWhen(server, MODE, (v) => v === 'Normal', 'the battery back to Normal once the car stops');
  assert.deepEqual(await batteryWrites(server), ['Hold ok', 'Hold ok', 'Normal ok']);

  // Battery-to-car allowed: the car draws and the battery stays in Normal, tick after tick.
  await valueWhen(server, 'charger_1/status', (v) => v === 'SuspendedEVSE', 'the car paused');
  await set(server, 'charger_1/allow_battery_to_car', 'ON');
  await set(server, 'charger_1/mode', 'now');
  // A pause lasts at least five minutes (the contactor's rest).
  clock.set(BEFORE + 18 * MINUTE);
  await valueWhen(server, 'charger_1/status', (v) => v === 'Charging', 'charging again');
  await staysNormal(server, 'the owner allows battery-to-car');
  assert.deepEqual(await batteryWrites(server), ['Hold ok', 'Hold ok', 'Normal ok']);

  // Allowed no more: held again. Then the owner sets the battery by hand: their choice stands.
  await set(server, 'charger_1/allow_battery_to_car', 'OFF');
  await valueWhen(server, MODE, (v) => v === 'Hold', 'the battery held again');
  await set(server, MODE, 'Normal');
  await valueWhen(server, 'charger_1/reason', (v) => /left so until the car stops/.test(String(v)), 'the reason');
  // Past the minute after which the plugin looks at the batteries again.
  clock.set(BEFORE + 20 * MINUTE);
  await staysNormal(server, 'the owner set it so');
  assert.deepEqual(await batteryWrites(server), ['Hold ok', 'Hold ok', 'Normal ok', 'Hold ok']);
});

test('with the planner active the battery is the planner’s alone: the ocpp plugin writes nothing to it', async () => {
  const { server } = await carHomeAfter('planner_1/mode', 'active');
  await set(server, 'charger_1/mode', 'now');
  await valueWhen(server, 'charger_1/status', (v) => v === 'Charging', 'charging');
  await valueWhen(
    server,
    'charger_1/reason',
    (v) => /planner_1 is active: the home battery is its to command/.test(String(v)),
    'the reason naming the planner',
  );
  assert.deepEqual(await batteryWrites(server), []);
});
