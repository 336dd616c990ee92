import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BATTERY_LEASE_MS,
  polledBatteryControl,
  type BatteryCommand,
  type BatteryMode,
  type PolledBatteryControlOptions,
} from '../src/index.js';

const T0 = Date.UTC(2026, 0, 1, 22);
const signal = new AbortController().signal;

/**
 * A polled device: `program` records what it was set to and shows it to `read`; the site's
 * write path runs the mode setting's handler, as the core's does, and records the write.
 */
function rig(options: Partial<PolledBatteryControlOptions> = {}) {
  const clock = { now: T0 };
  const device = { mode: 'normal' as BatteryMode | null };
  const programmed: Array<{ command: BatteryCommand; until: number | null }> = [];
  const written: string[] = [];
  const logs: string[] = [];
  const polled = polledBatteryControl({
    limits: {
      capacityKwh: 10,
      maxChargeW: 3000,
      maxDischargeW: 3000,
      minSoc: 10,
      modes: ['normal', 'hold', 'charge', 'discharge'],
    },
    boundedOnDevice: true,
    now: () => clock.now,
    device: 'inverter_1',
    log: (message) => logs.push(message),
    read: () => Promise.resolve(device.mode),
    program: ({ command, until }) => {
      programmed.push({ command, until });
      device.mode = command.mode;
      return Promise.resolve();
    },
    site: {
      write: async ({ topic, value }) => {
        written.push(`${topic}=${String(value)}`);
        assert.equal(topic, 'inverter_1/battery_control_mode');
        const label = String(value);
        await polled.control.settings[0]!.write({ value: label.toLowerCase(), label, signal } as never);
      },
    },
    ...options,
  });
  /** Writes the power and the target where they change, then the mode, as the settings' handlers take them. */
  const command = async (c: BatteryCommand) => {
    const [mode, power, target] = polled.control.settings;
    const now = polled.control.current();
    if (now.powerW !== c.powerW) await power!.write({ value: c.powerW, signal } as never);
    if (now.targetSoc !== c.targetSoc) await target!.write({ value: c.targetSoc, signal } as never);
    const labels = { normal: 'Normal', hold: 'Hold', charge: 'Charge', discharge: 'Discharge' };
    await mode!.write({ value: c.mode, label: labels[c.mode], signal } as never);
  };
  const poll = (soc: number | null) => polled.afterPoll({ soc, signal });
  return { clock, device, programmed, written, logs, polled, command, poll };
}

const modes = (programmed: Array<{ command: BatteryCommand }>) => programmed.map((p) => p.command.mode);

/** A {@link rig} whose device is in `mode` at the start (null: it cannot tell), after its first poll at SOC 50. */
async function startedIn(mode: BatteryMode | null): Promise<ReturnType<typeof rig>> {
  const r = rig();
  r.device.mode = mode;
  await r.poll(50);
  return r;
}

/** A {@link rig} polled at SOC `before`, told `command`, then polled at SOC `after`. */
async function toldBetween(before: number | null, command: BatteryCommand, after: number | null) {
  const r = rig();
  await r.poll(before);
  await r.command(command);
  await r.poll(after);
  return r;
}

/** A `lapsed` hook, and the modes it heard the device was found in, one a call. */
function lapsedLog(): [Array<BatteryMode | null>, NonNullable<PolledBatteryControlOptions['lapsed']>] {
  const found: Array<BatteryMode | null> = [];
  const hook: NonNullable<PolledBatteryControlOptions['lapsed']> = ({ found: mode }) => {
    found.push(mode);
    return Promise.resolve();
  };
  return [found, hook];
}

/** The first poll (at SOC 50), then a Charge at 2000 W to 90 %, then the clock moved on `ms`: the whole lease unless told. */
async function chargeFor(r: ReturnType<typeof rig>, ms = BATTERY_LEASE_MS): Promise<void> {
  await r.poll(50);
  await r.command({ mode: 'charge', powerW: 2000, targetSoc: 90 });
  r.clock.now += ms;
}

test('the first poll ends a forced command found on the device, through the write path, once', async () => {
  const r = await startedIn('charge');
  assert.deepEqual(r.written, ['inverter_1/battery_control_mode=normal']);
  assert.deepEqual(modes(r.programmed), ['normal']);
  assert.match(r.logs.join('\n'), /charge in force on the device at the start/);
  await r.poll(50);
  assert.deepEqual(r.written.length, 1, 'the reconcile runs once');
});

test('a command of this run that came before the first poll is not ended as a leftover; another mode found is', async () => {
  const r = rig();
  await r.command({ mode: 'charge', powerW: 2000, targetSoc: 90 });
  await r.poll(50);
  assert.deepEqual(r.written, [], 'the charge it was just told is no leftover');
  assert.deepEqual(modes(r.programmed), ['charge']);
  assert.equal(r.polled.control.current().mode, 'charge');
  // The device showing something else than this run's command: ended at the first poll.
  const other = rig();
  await other.command({ mode: 'charge', powerW: 2000, targetSoc: 90 });
  other.device.mode = 'discharge';
  await other.poll(50);
  assert.deepEqual(other.written, ['inverter_1/battery_control_mode=normal']);
});

test('a device found normal at the start, or one that cannot tell, is left or ended', async () => {
  const normal = await startedIn('normal');
  assert.deepEqual(normal.written, [], 'normal: nothing written');
  const unknown = await startedIn(null);
  assert.deepEqual(unknown.written, ['inverter_1/battery_control_mode=normal'], 'cannot tell: Normal');
});

test('a charge is held once a poll reads its target reached, once, and its renewal stays a hold', async () => {
  const r = await toldBetween(70, { mode: 'charge', powerW: 2000, targetSoc: 80 }, 79);
  assert.deepEqual(modes(r.programmed), ['charge']);
  await r.poll(80);
  assert.deepEqual(modes(r.programmed), ['charge', 'hold'], 'held at the target');
  assert.equal(r.programmed[1]!.until, r.programmed[0]!.until, 'within the same lease');
  await r.poll(81);
  assert.equal(r.programmed.length, 2, 'held once');
  r.clock.now += 15 * 60_000;
  await r.command({ mode: 'charge', powerW: 2000, targetSoc: 80 });
  assert.deepEqual(modes(r.programmed).at(-1), 'hold', 'the renewal at the target holds');
  assert.equal(r.polled.control.current().mode, 'charge', 'the command in force is still the charge');
});

test('a discharge already at its target holds at once', async () => {
  const r = rig();
  await r.poll(30);
  await r.command({ mode: 'discharge', powerW: 2000, targetSoc: 40 });
  assert.deepEqual(modes(r.programmed), ['hold']);
  assert.match(r.logs.join('\n'), /battery at 30 %, the discharge target 40 %: holding/);
});

test('stopsAtTarget: the device stops there itself, for both modes or the ones named', async () => {
  const both = rig({ stopsAtTarget: true });
  await both.poll(50);
  await both.command({ mode: 'charge', powerW: 2000, targetSoc: 60 });
  await both.poll(60);
  await both.command({ mode: 'discharge', powerW: 2000, targetSoc: 60 });
  await both.poll(60);
  assert.deepEqual(modes(both.programmed), ['charge', 'discharge'], 'never held');

  const charge = rig({ stopsAtTarget: ['charge'] });
  await charge.poll(50);
  await charge.command({ mode: 'charge', powerW: 2000, targetSoc: 60 });
  await charge.poll(60);
  assert.deepEqual(modes(charge.programmed), ['charge'], 'the charge stops on the device');
  await charge.command({ mode: 'discharge', powerW: 2000, targetSoc: 60 });
  assert.deepEqual(modes(charge.programmed), ['charge', 'hold'], 'the discharge at its target is held');
});

test('a forced command the device kept past its lease is ended through the write path', async () => {
  const r = rig();
  await chargeFor(r, BATTERY_LEASE_MS - 1);
  await r.poll(55);
  assert.deepEqual(r.written, [], 'within the lease: nothing');
  r.clock.now += 1;
  await r.poll(60);
  assert.deepEqual(r.written, ['inverter_1/battery_control_mode=normal']);
  assert.deepEqual(modes(r.programmed), ['charge', 'normal']);
  assert.match(r.logs.join('\n'), /charge still in force after its lease ended at 2026-01-01T22:30:00.000Z/);
});

test('a lease the device ended by itself: no write, and `lapsed` clears what the program left', async () => {
  const [lapsed, onLapsed] = lapsedLog();
  const r = rig({ lapsed: onLapsed });
  await chargeFor(r);
  r.device.mode = 'normal'; // its own timer ran
  await r.poll(60);
  await r.poll(60);
  assert.deepEqual(r.written, []);
  assert.deepEqual(lapsed, ['normal'], 'once, at the first poll after the end');
  assert.equal(r.polled.control.current().mode, 'normal');
});

test('`keep` runs at each poll while the lease runs, with the command as programmed, never after', async () => {
  const kept: Array<{ mode: BatteryMode; until: number }> = [];
  const r = rig({
    keep: ({ command, until }) => {
      kept.push({ mode: command.mode, until });
      return Promise.resolve();
    },
  });
  await r.poll(50);
  await r.poll(50);
  assert.deepEqual(kept, [], 'nothing forced: nothing kept');
  await r.command({ mode: 'charge', powerW: 2000, targetSoc: 60 });
  const until = T0 + BATTERY_LEASE_MS;
  await r.poll(55);
  await r.poll(60); // the hold at the target, not `keep`
  await r.poll(60);
  assert.deepEqual(kept, [
    { mode: 'charge', until },
    { mode: 'hold', until },
  ]);
  r.clock.now = until;
  r.device.mode = 'normal';
  await r.poll(60);
  assert.equal(kept.length, 2, 'not past the lease');
});

test('stopClean ends a forced command in force, and writes nothing in normal', async () => {
  const r = rig();
  await r.poll(50);
  await r.polled.stopClean();
  assert.deepEqual(r.written, [], 'normal: nothing');
  await r.command({ mode: 'hold', powerW: 2000, targetSoc: 60 });
  await r.polled.stopClean();
  assert.deepEqual(r.written, ['inverter_1/battery_control_mode=normal']);
  assert.deepEqual(modes(r.programmed), ['hold', 'normal']);
});

test('one change of the device at a time: the poll waits for a command being programmed', async () => {
  const steps: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const r = rig({
    program: async ({ command }) => {
      steps.push(`${command.mode} start`);
      if (command.mode === 'charge') await gate;
      steps.push(`${command.mode} end`);
    },
  });
  await r.poll(50);
  const charging = r.command({ mode: 'charge', powerW: 2000, targetSoc: 60 });
  await new Promise<void>((resolve) => setImmediate(resolve));
  const polling = r.poll(60);
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.deepEqual(steps, ['charge start'], 'the poll did not start the hold');
  release();
  await Promise.all([charging, polling]);
  assert.deepEqual(steps, ['charge start', 'charge end', 'hold start', 'hold end']);
});

test('the start logs what it ended: a forced mode, or a command it cannot tell; a normal device is not logged', async () => {
  const forced = await startedIn('discharge');
  assert.deepEqual(forced.logs, ['discharge in force on the device at the start: set to Normal']);
  const unknown = await startedIn(null);
  assert.deepEqual(unknown.logs, ['a command it cannot tell in force on the device at the start: set to Normal']);
  const normal = await startedIn('normal');
  assert.deepEqual(normal.logs, [], 'nothing to say about a normal device');
});

test('a charge or discharge short of its target is programmed as given, without a word of holding', async () => {
  const discharge = await toldBetween(50, { mode: 'discharge', powerW: 2000, targetSoc: 20 }, 49);
  assert.deepEqual(modes(discharge.programmed), ['discharge']);
  const charge = await toldBetween(50, { mode: 'charge', powerW: 2000, targetSoc: 90 }, 51);
  assert.deepEqual(modes(charge.programmed), ['charge']);
  assert.deepEqual([...discharge.logs, ...charge.logs], []);
});

test('an unknown SOC never counts as a target reached', async () => {
  const r = await toldBetween(null, { mode: 'discharge', powerW: 2000, targetSoc: 40 }, null);
  await r.command({ mode: 'charge', powerW: 2000, targetSoc: 60 });
  await r.poll(null);
  // The target's write re-applies the discharge before the mode turns to charge.
  assert.deepEqual(modes(r.programmed), ['discharge', 'discharge', 'charge'], 'never held without a SOC');
  assert.deepEqual(r.logs, []);
});

test('the hold at the target is logged once, through the poll and the renewals', async () => {
  const r = await toldBetween(70, { mode: 'charge', powerW: 2000, targetSoc: 80 }, 80);
  assert.deepEqual(r.logs, ['battery at 80 %, the charge target 80 %: holding']);
  r.clock.now += 15 * 60_000;
  await r.command({ mode: 'charge', powerW: 2000, targetSoc: 80 });
  await r.poll(81);
  assert.deepEqual(modes(r.programmed), ['charge', 'hold', 'hold']);
  assert.equal(r.logs.length, 1, 'the renewal of a hold says nothing new');
});

test('after Normal nothing is left to end: no `lapsed`, no `keep`, no write at a later poll', async () => {
  const [lapsed, onLapsed] = lapsedLog();
  const kept: BatteryMode[] = [];
  const r = rig({
    lapsed: onLapsed,
    keep: ({ command }) => {
      kept.push(command.mode);
      return Promise.resolve();
    },
  });
  await r.poll(50);
  await r.command({ mode: 'charge', powerW: 2000, targetSoc: 90 });
  await r.command({ mode: 'normal', powerW: 2000, targetSoc: 90 });
  await r.poll(55);
  r.clock.now += BATTERY_LEASE_MS;
  await r.poll(55);
  assert.deepEqual(lapsed, []);
  assert.deepEqual(kept, []);
  assert.deepEqual(r.written, []);
  assert.deepEqual(modes(r.programmed), ['charge', 'normal']);
});

test('a lease ended on a device that cannot tell its mode: no write, `lapsed` hears null, the read gets the poll signal', async () => {
  const [lapsed, onLapsed] = lapsedLog();
  const reads: AbortSignal[] = [];
  const r = rig({
    read: ({ signal: given }) => {
      reads.push(given);
      return Promise.resolve(r.device.mode);
    },
    lapsed: onLapsed,
  });
  await chargeFor(r);
  r.device.mode = null;
  const stop = new AbortController();
  await r.polled.afterPoll({ soc: 60, signal: stop.signal });
  assert.deepEqual(r.written, [], 'nothing known to be forced: nothing written');
  assert.deepEqual(lapsed, [null]);
  assert.equal(r.polled.control.current().mode, 'normal');
  assert.ok(!r.logs.some((line) => line.includes('still in force')), r.logs.join('\n'));
  assert.equal(reads.at(-1), stop.signal, 'a stop aborts the read of a lapsed lease');
});
