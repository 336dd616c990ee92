// Battery control on the simulator in the real server with a manual clock: modes written
// through the API steer the simulated bank, the SOC moves in the commanded direction and
// stops at the target, every write is audited and the limits are enforced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '@heliograph/core/clock';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { instanceWhen, valuesOf, valuesWhen } from './driver-api.js';
import { assertLimitsEnforced, command, lastAudited } from './battery-control.js';

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

test('simulator: charge to a target, hold, discharge to a target, through the API', async () => {
  const clock = new ManualClock(MIDNIGHT);
  const server = await startTestServer({
    clock,
    bundled: ['simulator'],
    plugins: [
      {
        id: 'sim',
        plugin: 'simulator',
        devices: ['inverter_1', 'battery_1'],
        config: { pollIntervalMs: POLL_MS, initialSoc: 40, demoForecast: false, demoPrices: false },
      },
    ],
  });
  await valuesWhen(server, (v) => v.get('inverter_1/battery_capacity') === 10, 'the bank limits as info');

  await command(server, 'inverter_1', { mode: 'charge', powerW: 4000, targetSoc: 55 });
  assert.deepEqual((await lastAudited(server, 'inverter_1/battery_control_mode')).new_value, 'Charge');
  const first = await socAfter(server, clock, 30);
  assert.ok(first > 45, `charging at 4 kW for 30 min: ${first}`);
  const full = await socAfter(server, clock, 60);
  assert.ok(Math.abs(full - 55) < 0.15, `stops at the target: ${full}`);
  assert.ok(Math.abs((await socAfter(server, clock, 30)) - full) < 0.15, 'and stays there');

  await command(server, 'inverter_1', { mode: 'hold', powerW: 4000, targetSoc: 55 });
  const held = await socAfter(server, clock, 60);
  assert.ok(Math.abs(held - full) < 0.15, `hold keeps the SOC: ${held}`);

  await command(server, 'inverter_1', { mode: 'discharge', powerW: 5000, targetSoc: 45 });
  const low = await socAfter(server, clock, 60);
  assert.ok(Math.abs(low - 45) < 0.15, `discharged to the target: ${low}`);

  await assertLimitsEnforced(server, 'inverter_1', { maxChargeW: 5000, minSoc: 10 });
});
