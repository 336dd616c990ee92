// Issue 43's fail-safe on a Voltronic / Axpert (PI30) inverter, whose settings have no timer:
// nothing on the device ends a forced command by itself, so the driver declares no lease on the
// device (battery_control_lease 0, and the planner will not charge it unless the owner sets
// acceptUnboundedControl: test/integrations/planner-voltronic.test.ts). The tests assert what
// plugins/voltronic/README.md ("When Heliograph stops or crashes while it charges") says, with
// the real server as a child process and the PI30 emulator in this process, read through the
// device's own answer to QPIRI (its priorities) and QPIGS (its charging status), as mpp-solar's
// pi30.py reads them: a stop (SIGTERM) writes the normal priorities before it exits; after a
// kill -9 or with the link silent the inverter stays forced however long it runs, and what ends
// it is the driver: its next start (audited), or its first poll the inverter answers after the
// lease ran out on the server's clock.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import { startEmulatorServer } from '@heliograph/plugins-sdk/emulator';
import { pi30Protocol, VoltronicDevice } from '@heliograph/plugin-voltronic/emulator';
import { pollUntil, within } from '../helpers/deadline.js';
import { tempDir } from '../helpers/server.js';
import { command } from '../drivers/battery-control.js';
import { valuesWhen as inProcessValuesWhen } from '../drivers/driver-api.js';
import { servePi30 } from '../drivers/pi30.js';
import {
  assertDevice,
  audited,
  charge,
  deviceShows,
  MINUTE,
  nightFrom,
  PAST_LEASE_MS,
  ServerRuns,
  valuesWhen,
  type DeviceReading,
} from './fail-safe-setup.js';

const BATTERY = { capacityKwh: 10.24, maxChargeW: 3000, maxDischargeW: 4000, minSoc: 20 };
const DEVICE = 'inverter_1';
const MODE = `${DEVICE}/battery_control_mode`;

/**
 * What the inverter does by its own answers: QPIRI's output source priority (field 16) and
 * charger source priority (17, an HS model's numbers: 2 solar and utility, 3 only solar), and
 * QPIGS's device status bits (b0, the last: charging from the utility). Charge is utility first
 * with the utility charging the battery; normal is SBU with only solar charging, as the driver
 * writes it.
 */
function readVoltronic(device: VoltronicDevice): DeviceReading {
  const qpiri = device.answer('QPIRI').slice(1).split(' ');
  const status = device.answer('QPIGS').slice(1).split(' ')[16]!;
  const seen = { outputPriority: Number(qpiri[16]), chargerPriority: Number(qpiri[17]), status };
  if (seen.outputPriority === 0 && seen.chargerPriority === 2 && status.endsWith('1')) return { mode: 'charge', seen };
  return { mode: seen.outputPriority === 2 && seen.chargerPriority === 3 ? 'normal' : 'other', seen };
}

/** The inverter on a winter night, `offset` ms on (its clock moves only for how it charges: it has no timer). */
let offsetMs = 0;
const night = nightFrom(new Date(2026, 11, 21, 21, 0));
const device = new VoltronicDevice({ now: () => new Date(night().getTime() + offsetMs), soc: 50 });
const read = () => readVoltronic(device);
const emulator = await startEmulatorServer({ protocol: pi30Protocol(device) });
// At the file's end, in this order: the server killed, the emulator closed, then the data removed.
after(async () => {
  runs.end();
  await emulator.close();
});
const runs = new ServerRuns(
  {
    id: 'axpert',
    plugin: 'voltronic',
    devices: [DEVICE],
    config: {
      connection: { type: 'tcp', host: '127.0.0.1', port: emulator.port },
      pollIntervalMs: 500,
      timeoutMs: 300,
      battery: BATTERY,
    },
  },
  tempDir(),
);

/** Charge through the API of the running server, until the inverter charges from the utility. */
async function charging(): Promise<void> {
  const server = await runs.running();
  await valuesWhen(
    server,
    (v) => v.get(`${DEVICE}/battery_control_lease`) === 0,
    `${DEVICE}/battery_control_lease 0: a PI30 device cannot bound a command itself`,
  );
  await charge(server, DEVICE, 1500, 90);
  assertDevice(read, 'charge', 'the Charge written: utility first, the utility charging');
}

test('voltronic: the link silent while Charge, the inverter stays forced (it has no timer), as documented', async () => {
  await charging();
  emulator.silence(true);
  try {
    await within(emulator.nextRequest(), 'a request of the driver reaching the silent inverter');
    offsetMs += PAST_LEASE_MS;
    assertDevice(read, 'charge', `${PAST_LEASE_MS / MINUTE} min on, nothing on the device ended the charge`);
  } finally {
    emulator.silence(false);
  }
});

test('voltronic: kill -9 while Charge, the inverter stays forced until the next start ends it, audited', async () => {
  await charging();
  await runs.sigkill();
  offsetMs += PAST_LEASE_MS;
  assertDevice(read, 'charge', `${PAST_LEASE_MS / MINUTE} min after the kill, still charging from the utility`);

  const server = await runs.running();
  await deviceShows(read, 'normal', "the normal priorities written by the restarted driver's first poll");
  // Audited just after the inverter took it: the audit may lag the device by a moment, and
  // until it comes the newest entry is the test's own Charge (via rest).
  let entry: Awaited<ReturnType<typeof audited>>[number] | undefined;
  await pollUntil(async () => {
    [entry] = await audited(server, MODE);
    return { done: entry !== undefined && entry.via !== 'rest' };
  }, "the restarted driver's audited Normal, newer than the test's Charge");
  assert.deepEqual(
    entry && [entry.new_value, entry.result, entry.via],
    ['Normal', 'ok', 'voltronic'],
    'the end of the forced command at the start is audited',
  );
});

test('voltronic: SIGTERM while Charge, the stop writes the normal priorities before it exits', async () => {
  await charging();
  assert.equal(await runs.sigterm(), 0, 'exit code after SIGTERM');
  assertDevice(read, 'normal', 'SBU and only solar charging at once after the stop');
});

test('voltronic: the link silent past the lease, the first poll it answers ends the charge', async () => {
  // In-process, the server and a second emulated inverter on one manual clock: the lease runs
  // out on the server's clock while the link is silent, which a child process on the real
  // clock cannot show.
  const clock = new ManualClock(new Date(2026, 11, 21, 21, 0).getTime());
  const silent = new VoltronicDevice({ now: () => new Date(clock.now()), soc: 50 });
  // The emulator closes after the server, which startTestServer's hook closes at the end of this test.
  const { server, emulator: link } = await servePi30(silent, clock, BATTERY);
  await inProcessValuesWhen(server, (v) => v.get(`${DEVICE}/battery_control_lease`) === 0, 'battery control');
  await command(server, DEVICE, { mode: 'charge', powerW: 1500, targetSoc: 90 });
  assertDevice(() => readVoltronic(silent), 'charge', 'the Charge written');

  link.silence(true);
  try {
    await within(link.nextRequest(), 'a request of the driver reaching the silent inverter');
    clock.advance(PAST_LEASE_MS);
    await within(link.nextRequest(), 'a request of the driver after the lease ran out, into the silence');
    assertDevice(() => readVoltronic(silent), 'charge', 'the lease ran out while the link was silent: still charging');
  } finally {
    link.silence(false);
  }
  await deviceShows(
    () => readVoltronic(silent),
    'normal',
    'the normal priorities at the first poll the inverter answers',
  );
});
