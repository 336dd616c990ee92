// Issue 43's fail-safe on the simulator, with the real server as a child process. The
// simulated bank lives inside the server process, so there is no device to read after the
// server is gone and no link to go silent: it is read through the API of the server started
// again on the same data, and what it shows there is the simulation's own state (the mode in
// force and the bank's power, + charging), not a copy of a command. After a kill -9 it starts
// in Normal (nothing restored from storage, so nothing to end: no write of Normal either);
// after SIGTERM the stop wrote Normal, audited. The simulator's lease running out with nobody
// renewing it (the nearest it has to a silent link) is
// test/drivers/simulator-battery-control.test.ts, on a manual clock.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { ChildServer } from '../helpers/child-server.js';
import { tempDir } from '../helpers/server.js';
import { audited, charge, ServerRuns, valuesOf, valuesWhen } from './fail-safe-setup.js';

const DEVICE = 'inverter_1';
const MODE = `${DEVICE}/battery_control_mode`;
const BANK_POWER = 'battery_1/power';

// At the file's end, in this order: the server killed, then its data removed.
after(() => runs.end());
const runs = new ServerRuns(
  {
    id: 'sim',
    plugin: 'simulator',
    devices: [DEVICE, 'battery_1'],
    // No sun to speak of (1 W of PV) whatever the time of day: in Normal the bank only feeds the house.
    config: { pollIntervalMs: 1000, initialSoc: 50, pvPeakW: 1, demoForecast: false, demoPrices: false },
  },
  tempDir(),
);

/** Charge through the API; resolves once the simulated bank charges. */
async function charging(server: ChildServer): Promise<void> {
  await valuesWhen(
    server,
    (v) => v.get(`${DEVICE}/battery_control_lease`) === 1800,
    `${DEVICE}/battery_control_lease of 1800 s`,
  );
  await charge(server, DEVICE, 4000, 90);
  await valuesWhen(
    server,
    (v) => v.get(MODE) === 'Charge' && (v.get(BANK_POWER) as number) > 3000,
    'the simulated bank charging at about 4 kW',
  );
}

/** The first values of the restarted server's simulation: Normal from its first poll on, and the bank not charging. */
async function startsNormal(server: ChildServer): Promise<void> {
  const first = await valuesWhen(server, (v) => v.get(MODE) != null, `${MODE} from the first poll after the start`);
  assert.equal(first.get(MODE), 'Normal', 'the restarted simulation starts in Normal');
  await valuesWhen(
    server,
    (v) => v.get(MODE) === 'Normal' && (v.get(BANK_POWER) as number) <= 0,
    'the bank not charging (it feeds the house) in Normal',
  );
}

test('simulator: kill -9 while Charge, the restart on the same data starts in Normal, nothing restored', async () => {
  await charging(await runs.running());
  await runs.sigkill();

  const server = await runs.running();
  await startsNormal(server);
  const values = await valuesOf(server);
  assert.deepEqual(
    [values.get(`${DEVICE}/battery_control_power`), values.get(`${DEVICE}/battery_control_target_soc`)],
    [4000, 90],
    'the power and the target are kept across the restart, the mode is not',
  );
  assert.deepEqual(
    (await audited(server, MODE)).map((e) => [e.new_value, e.via]),
    [['Charge', 'rest']],
    'no Normal written at the start: no forced command came back to end',
  );
});

test('simulator: SIGTERM while Charge, the stop writes Normal (audited), and the restart is in Normal', async () => {
  await charging(await runs.running());
  assert.equal(await runs.sigterm(), 0, 'exit code after SIGTERM');

  const server = await runs.running();
  const [stop, command] = await audited(server, MODE);
  assert.deepEqual(
    [stop && [stop.new_value, stop.result, stop.via], command?.new_value],
    [['Normal', 'ok', 'simulator'], 'Charge'],
    'the stop wrote Normal after the Charge',
  );
  await startsNormal(server);
});
