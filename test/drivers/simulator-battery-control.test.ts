// Battery control on the simulator in the real server with a manual clock: modes written
// through the API (and written again within the lease, as the planner does) steer the
// simulated bank, the SOC moves in the commanded direction and stops at the target, every
// write is audited and the limits are enforced; a Charge nobody renews ends by itself in the
// simulated bank at the lease's end, with no write of Normal from anyone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '@heliograph/core/clock';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { instanceWhen, valuesOf, valuesWhen, write } from './driver-api.js';
import { assertLimitsEnforced, audit, command, lastAudited } from './battery-control.js';

const MIDNIGHT = Date.parse('2026-12-21T00:00:00Z'); // a winter night: no PV
const MINUTE = 60_000;
const POLL_MS = 1000;

/** Waits until a poll ended at `at` or later (`last_poll` is read from the manual clock). */
const pollEndedAt = (server: TestServer, at: number) =>
  instanceWhen(
    server,
    'sim',
    (i) => Date.parse((i as unknown as { last_poll: string }).last_poll) >= at,
    `a poll at ${new Date(at).toISOString()}`,
  );

/**
 * Moves the clock on and reads the bank's SOC from a poll that started after the move: a
 * poll ending at the new time may have started before it, the one after cannot have (jobs
 * never overlap), and the scheduler runs that one once the clock moved a poll interval on.
 */
async function socAfter(server: TestServer, clock: ManualClock, minutes: number): Promise<number> {
  clock.advance(minutes * MINUTE);
  await pollEndedAt(server, clock.now());
  clock.advance(POLL_MS);
  await pollEndedAt(server, clock.now());
  return (await valuesOf(server)).get('battery_1/state_of_charge') as number;
}

/** The server with the simulator (one inverter and its bank) at midnight, the bank at `initialSoc`. */
async function start(clock: ManualClock, initialSoc: number): Promise<TestServer> {
  const server = await startTestServer({
    clock,
    bundled: ['simulator'],
    plugins: [
      {
        id: 'sim',
        plugin: 'simulator',
        devices: ['inverter_1', 'battery_1'],
        config: { pollIntervalMs: POLL_MS, initialSoc, demoForecast: false, demoPrices: false },
      },
    ],
  });
  await valuesWhen(
    server,
    (v) => v.get('inverter_1/battery_capacity') === 10 && v.get('inverter_1/battery_control_lease') === 1800,
    'the bank limits and its 30 min lease as info',
  );
  return server;
}

/** Writes the mode again, as the planner does each quarter hour: that renews the lease. */
async function renew(server: TestServer, mode: string): Promise<void> {
  const answer = await write(server, 'inverter_1/battery_control_mode', mode);
  assert.equal(answer.status, 200, answer.body);
}

test('simulator: charge to a target, hold, discharge to a target, renewed within the lease, through the API', async () => {
  const clock = new ManualClock(MIDNIGHT);
  const server = await start(clock, 40);

  await command(server, 'inverter_1', { mode: 'charge', powerW: 4000, targetSoc: 55 });
  assert.deepEqual((await lastAudited(server, 'inverter_1/battery_control_mode')).new_value, 'Charge');
  const first = await socAfter(server, clock, 20);
  assert.ok(first > 45, `charging at 4 kW for 20 min: ${first}`);
  await renew(server, 'Charge');
  const full = await socAfter(server, clock, 20);
  assert.ok(Math.abs(full - 55) < 0.15, `stops at the target: ${full}`);
  await renew(server, 'Charge');
  assert.ok(Math.abs((await socAfter(server, clock, 20)) - full) < 0.15, 'and stays there');

  await command(server, 'inverter_1', { mode: 'hold', powerW: 4000, targetSoc: 55 });
  await socAfter(server, clock, 20);
  await renew(server, 'Hold');
  const held = await socAfter(server, clock, 20);
  assert.ok(Math.abs(held - full) < 0.15, `hold keeps the SOC: ${held}`);

  await command(server, 'inverter_1', { mode: 'discharge', powerW: 5000, targetSoc: 45 });
  const low = await socAfter(server, clock, 20);
  assert.ok(Math.abs(low - 45) < 0.15, `discharged to the target: ${low}`);

  await assertLimitsEnforced(server, 'inverter_1', { maxChargeW: 5000, minSoc: 10 });
});

test('simulator: a Charge nobody renews ends by itself in the simulated bank within the lease', async () => {
  const clock = new ManualClock(MIDNIGHT);
  const server = await start(clock, 40);
  await command(server, 'inverter_1', { mode: 'charge', powerW: 4000, targetSoc: 90 });

  const socs: number[] = [];
  let charging = true;
  for (let minutes = 5; minutes <= 45; minutes += 5) {
    socs.push(await socAfter(server, clock, 5));
    const power = (await valuesOf(server)).get('battery_1/power') as number;
    if (minutes < 30) assert.ok(power > 3000, `charging in the lease (${minutes} min): ${power} W`);
    else charging &&= power > 0;
  }
  assert.equal(charging, false, 'the bank stopped charging after the lease');
  const power = (await valuesOf(server)).get('battery_1/power') as number;
  assert.ok(power < 0, `back to SBU, the bank feeds the night load: ${power} W`);
  assert.ok(socs.at(-1)! < Math.max(...socs), `the SOC rose in the lease, then fell: ${socs.join(' ')}`);
  assert.equal((await valuesOf(server)).get('inverter_1/battery_control_mode'), 'Normal');
  const modes = (await audit(server)).filter((e) => e.topic === 'inverter_1/battery_control_mode');
  assert.deepEqual(
    modes.map((e) => e.new_value),
    ['Charge'],
    'nobody wrote Normal: the simulated bank ended the command by itself',
  );
});
