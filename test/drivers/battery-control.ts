/*
 * What the battery-control driver tests share: the driver started against its emulator, the
 * emulator's units recording their writes, commands written through POST /api/v1/metrics (the
 * API's write path), and the audit entries they leave; a unit's clock moved on while its SOC is
 * read (`advance`), on a clock of its own (`ownClockRig`) or one it shares with the server
 * (`sharedClockStart`), and the steps of a lease every family takes (charging to a target and
 * holding, a Charge running out on the device, a forced program ended at the start, the stop).
 * A family's test file keeps what only its device does: its registers, its readings and its
 * evidence.
 */
import assert from 'node:assert/strict';
import { ManualClock } from '@heliograph/core/clock';
import type { BatteryCommand } from '@heliograph/plugins-sdk';
import {
  ModbusException,
  ModbusExceptionCode,
  startModbusEmulator,
  type ModbusDevice,
  type RunningEmulator,
} from '@heliograph/plugins-sdk/emulator';
import { eventually } from '../helpers/child-server.js';
import { pollUntil, within } from '../helpers/deadline.js';
import type { TestServer } from '../helpers/server.js';
import { connectionTo, serveDriver, valuesWhen, write, type DriverInstance } from './driver-api.js';

export interface AuditEntry {
  topic: string;
  new_value: string;
  result: 'ok' | 'error';
  message: string | null;
  via: string;
  who: string;
}

export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;
/** Night, local time of the process: no PV, the battery alone moves. 21 June 2026 is a Sunday. */
export const NIGHT = new Date(2026, 5, 21, 22, 0).getTime();

const LABELS = { normal: 'Normal', hold: 'Hold', charge: 'Charge', discharge: 'Discharge' } as const;

/** Writes power, target and then the mode, each through the API; every write must be accepted. */
export async function command(server: TestServer, device: string, command: BatteryCommand): Promise<void> {
  for (const [name, value] of [
    ['battery_control_power', String(command.powerW)],
    ['battery_control_target_soc', String(command.targetSoc)],
    ['battery_control_mode', LABELS[command.mode]],
  ] as const) {
    const answer = await write(server, `${device}/${name}`, value);
    assert.equal(answer.status, 200, `${device}/${name} = ${value}: ${answer.body}`);
  }
}

/** GET /api/v1/audit, newest first. */
export async function audit(server: TestServer): Promise<AuditEntry[]> {
  return (await (await server.api('/api/v1/audit?limit=1000')).json()) as AuditEntry[];
}

/**
 * The newest audit entry for `topic`, waiting for the first one: a write the test did not make
 * itself (a driver ending a forced command at its start) is audited just after the device took
 * it, so the device can show it before the audit does.
 */
export async function lastAudited(server: TestServer, topic: string): Promise<AuditEntry> {
  let entry: AuditEntry | undefined;
  await pollUntil(async () => {
    entry = (await audit(server)).find((e) => e.topic === topic);
    return { done: entry !== undefined };
  }, `an audit entry for ${topic}`);
  return entry!;
}

/** The limits every driver enforces: power above the mode's limit and a target below the minimum SOC are refused, audited as errors. */
export async function assertLimitsEnforced(
  server: TestServer,
  device: string,
  limits: { maxChargeW: number; minSoc: number },
): Promise<void> {
  const low = await write(server, `${device}/battery_control_target_soc`, String(limits.minSoc - 1));
  assert.equal(low.status, 422, low.body);
  const lowEntry = await lastAudited(server, `${device}/battery_control_target_soc`);
  assert.equal(lowEntry.result, 'error');
  assert.equal(lowEntry.new_value, String(limits.minSoc - 1));

  const power = await write(server, `${device}/battery_control_power`, String(limits.maxChargeW + 1));
  if (power.status === 200) {
    // Within the setting's range (the discharge limit is higher): refused once charging is asked for.
    const charge = await write(server, `${device}/battery_control_mode`, 'Charge');
    assert.equal(charge.status, 422, charge.body);
    assert.match(charge.body, /above the battery's max charge power/);
    assert.equal((await lastAudited(server, `${device}/battery_control_mode`)).result, 'error');
  } else {
    assert.equal(power.status, 422, power.body);
    assert.equal((await lastAudited(server, `${device}/battery_control_power`)).result, 'error');
  }
}

/** A write request a Modbus device took: its first register and its words. */
export interface RegisterWrite {
  address: number;
  values: number[];
}

/** What {@link recordWrites} adds to a device: its write log, and a switch that has it refuse every write. */
export interface WriteLog {
  refuse: boolean;
  writes: RegisterWrite[];
}

/**
 * `device` (an emulator's unit) recording the write requests it takes (a copy of their words),
 * and refusing them with an illegal data value, as a unit refuses a setting, once `refuse` is
 * set. The device's own `writeRegisters` still does the write.
 */
export function recordWrites<D extends Pick<ModbusDevice, 'writeRegisters'>>(device: D): D & WriteLog {
  const own = device.writeRegisters.bind(device);
  const recording = Object.assign(device, { refuse: false, writes: [] as RegisterWrite[] });
  recording.writeRegisters = (request) => {
    if (recording.refuse) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
    recording.writes.push({ address: request.address, values: [...request.values] });
    own(request);
  };
  return recording;
}

/** The driver instance a battery-control test runs, its connection the Modbus emulator's over `transport`. */
export interface DriverUnderTest extends Omit<DriverInstance, 'connection'> {
  devices: string[];
  transport: 'tcp' | 'rtu-over-tcp';
  /** The emulator's units by unit id. */
  units: Map<number, ModbusDevice>;
}

/**
 * The Modbus emulator with `driver.units`, and the real server polling it with the driver. The
 * emulator closes after the server (hooks run in the order they were added), so the driver's
 * stop writes Normal to a device still there.
 */
export async function startDriver(driver: DriverUnderTest): Promise<{ server: TestServer; emulator: RunningEmulator }> {
  const { transport, units, ...instance } = driver;
  const emulator = await startModbusEmulator({ transport, units });
  const server = await serveDriver(emulator, { ...instance, connection: await connectionTo(emulator, transport) });
  return { server, emulator };
}

/** How a test starts a unit on a shared clock: its model, the driver's devices, the unit's clock offset, what an earlier run left. */
export interface SharedClockOptions<D, M = never> {
  model?: M;
  devices?: string[];
  clockOffsetMs?: number;
  prepare?: (unit: D) => void;
}

/** A hybrid inverter family whose battery control runs by the unit's own clock (a time-of-use program, time slots). */
export interface SharedClockFamily<D, M = never> {
  plugin: string;
  transport: DriverUnderTest['transport'];
  unit: number;
  /** The driver's `battery` config: the limits it enforces. */
  battery: { capacityKwh: number; maxChargeW: number; maxDischargeW: number; minSoc: number };
  /** The emulator's unit on the shared clock (`now`), its own clock `clockOffsetMs` from it. */
  make: (options: { now: () => Date; soc: number; clockOffsetMs: number; model?: M }) => D;
}

/**
 * The `start` of a {@link SharedClockFamily}'s tests: its unit at SOC 50 on a shared clock at
 * {@link NIGHT} ({@link startOnSharedClock}), with the inverter and its battery unless
 * `options.devices` says otherwise, polled every 500 ms.
 */
export function sharedClockStart<D extends ModbusDevice, M = never>(family: SharedClockFamily<D, M>) {
  return (options: SharedClockOptions<D, M> = {}) => {
    const { model, clockOffsetMs = 0 } = options;
    return startOnSharedClock(
      NIGHT,
      (now) => family.make({ now, soc: 50, clockOffsetMs, ...(model !== undefined && { model }) }),
      {
        plugin: family.plugin,
        devices: options.devices ?? ['inverter_1', 'battery_1'],
        config: { pollIntervalMs: 500, timeoutMs: 400, battery: family.battery },
        transport: family.transport,
        unit: family.unit,
        prepare: options.prepare,
      },
    );
  };
}

/** A family whose unit ends a forced command by its own timer, the unit on a manual clock of its own, the server on the real one. */
export interface OwnClockFamily<D extends ModbusDevice & { soc: number }> {
  plugin: string;
  transport: DriverUnderTest['transport'];
  /** The driver's devices: the inverter alone unless given. */
  devices?: string[];
  /** The driver's config beyond its polling (every 500 ms, 300 ms a request) and its battery. */
  config?: Record<string, unknown>;
  /** The driver's `battery` config, unless a start says otherwise. */
  battery?: Record<string, number>;
  /** Where the unit's clock starts: at night, no PV. */
  at: number;
  /** The unit (unit id 1) at its clock's time `now`, its battery at SOC 50. */
  make: (now: () => Date) => D;
  /** Reads the register that brings the unit's battery up to its clock's time. */
  touch: (device: D) => void;
  /** How the server shows the unit's SOC: its topic and its decimals. */
  socShown: { topic: string; decimals: number };
}

/** What the tests of an {@link OwnClockFamily} start and move: its unit, its clock, the driver on it. */
export interface OwnClockRig<D extends ModbusDevice & { soc: number }> {
  /** The clock of the unit made last. */
  readonly clock: ManualClock;
  /** A unit recording its writes, on a clock of its own from the family's `at`. */
  unit(): D & WriteLog;
  /** The driver polling `device` (the family's, or another unit), with the family's battery config unless `battery` says otherwise (null: none), on `clock` if given. */
  start(
    device: ModbusDevice,
    options?: { battery?: Record<string, number> | null; clock?: ManualClock },
  ): ReturnType<typeof startDriver>;
  /** A new unit and the driver, its lease offered on the device, told to Charge at `powerW` to 90 %. */
  charging(powerW: number): Promise<Awaited<ReturnType<typeof startDriver>> & { device: D & WriteLog }>;
  /** The unit's battery on its clock, for {@link advance}; as `server` shows it, if given. */
  battery(device: D, server?: TestServer): SocProbe;
}

/** The {@link OwnClockRig} of `family`. */
export function ownClockRig<D extends ModbusDevice & { soc: number }>(family: OwnClockFamily<D>): OwnClockRig<D> {
  let clock = new ManualClock(family.at);
  const rig: OwnClockRig<D> = {
    get clock() {
      return clock;
    },
    unit() {
      const own = (clock = new ManualClock(family.at));
      return recordWrites(family.make(() => new Date(own.now())));
    },
    start(device, options = {}) {
      const battery = options.battery === undefined ? family.battery : options.battery;
      return startDriver({
        plugin: family.plugin,
        devices: family.devices ?? ['inverter_1'],
        config: { pollIntervalMs: 500, timeoutMs: 300, ...family.config, ...(battery && { battery }) },
        transport: family.transport,
        units: new Map([[1, device]]),
        ...(options.clock && { clock: options.clock }),
      });
    },
    async charging(powerW) {
      const device = rig.unit();
      const started = await rig.start(device);
      await leaseOffered(started.server);
      await command(started.server, 'inverter_1', { mode: 'charge', powerW, targetSoc: 90 });
      return { ...started, device };
    },
    battery(device, server) {
      const { topic, decimals } = family.socShown;
      const soc = () => {
        family.touch(device);
        return Math.round(device.soc * 10 ** decimals) / 10 ** decimals;
      };
      return { clock, soc, ...(server && { shown: { server, topic } }) };
    },
  };
  return rig;
}

/** A unit's clock 3 h 17 min 20 s behind the site's: a window placed on it starts 40 s into its minute. */
export const DRIFT_MS = -(197 * MINUTE + 20_000);

/** A unit of a {@link SharedClockFamily} that runs a program by its own clock, offset from the site's. */
export interface DriftingUnit extends ModbusDevice {
  clockOffsetMs: number;
  /** The unit's power flows now, by its program. */
  flowsNow(): { charge: number };
}

/**
 * A Charge at `powerW` to 90 % on a unit whose clock is {@link DRIFT_MS} behind the site's
 * (`start` a {@link sharedClockStart}): `placed` asserts the window placed on the unit's clock
 * and the unit charges from the grid at once; then nobody renews
 * ({@link assertWindowRunsOutSilently}), `forced` asserting it still forced, `ended` what it
 * does by itself.
 */
export async function assertDriftedChargeRunsOut<D extends DriftingUnit>(
  start: (options: {
    clockOffsetMs: number;
  }) => Promise<{ device: D & WriteLog; emulator: RunningEmulator; server: TestServer }>,
  powerW: number,
  unit: { placed: (device: D) => void; forced: (device: D) => void; ended: (device: D) => void },
): Promise<void> {
  const { device, emulator, server } = await start({ clockOffsetMs: DRIFT_MS });
  await command(server, 'inverter_1', { mode: 'charge', powerW, targetSoc: 90 });
  unit.placed(device);
  assert.ok(device.flowsNow().charge > 0, 'grid charging now');

  // Nobody renews: the link goes silent; only the unit's clock moves.
  assertWindowRunsOutSilently(emulator, device, DRIFT_MS, {
    forced: () => unit.forced(device),
    ended: () => unit.ended(device),
  });
}

/**
 * Heliograph gone for good, a program left on a silent unit (the driver's clean-up cannot reach
 * it) runs on the weekdays it was written for only: from a Sunday window, a day on (5 min into
 * the window's time of day, by the unit's clock `drift` off the site's) no program runs and
 * `monday` asserts what the unit does then; a week on `again` asserts the window in force again.
 */
export function assertWeekdayOnly(
  unit: { clockOffsetMs: number; clock(): Date; programNow(): unknown },
  drift: number,
  checks: { monday?: () => void; again: () => void },
): void {
  unit.clockOffsetMs = drift + DAY + 5 * MINUTE;
  assert.equal(unit.clock().getDay(), 1, 'Monday on the unit, 5 min into the window');
  assert.equal(unit.programNow(), null, 'no program on Monday: no forced window');
  checks.monday?.();
  unit.clockOffsetMs = drift + 7 * DAY + 5 * MINUTE;
  checks.again();
}

/**
 * A Charge nobody renews on a unit whose clock is `drift` off the site's: with the link silent
 * only the unit's clock moves, and `forced` asserts it still forced at 29 min on (a minute
 * before the window's end), `ended` what it does from 30 min on (and later) by itself.
 */
export function assertWindowRunsOutSilently(
  emulator: RunningEmulator,
  unit: { clockOffsetMs: number },
  drift: number,
  checks: { forced: () => void; ended: () => void },
): void {
  emulator.silence(true);
  try {
    unit.clockOffsetMs = drift + 29 * MINUTE;
    checks.forced();
    unit.clockOffsetMs = drift + 30 * MINUTE;
    checks.ended();
  } finally {
    emulator.silence(false);
  }
}

/**
 * A forced program found at driver `plugin`'s start: ended on the unit (`ended` reads whether
 * it is, and what the unit holds; `what` names it), audited as the driver's own Normal.
 */
export async function assertEndedAtStart(
  server: TestServer,
  plugin: string,
  ended: () => { done: boolean; seen: unknown },
  what: string,
): Promise<void> {
  await pollUntil(() => Promise.resolve(ended()), what);
  await assertNormalAudited(server, 'inverter_1', plugin);
}

/** Asserts that no mode was audited for `device`: it was normal at the driver's start, so nothing was written. */
export async function assertNothingWrittenAtStart(server: TestServer, device: string): Promise<void> {
  assert.equal(
    (await audit(server)).some((e) => e.topic === `${device}/battery_control_mode`),
    false,
    'the device was normal at the start: nothing written',
  );
}

/**
 * A unit made at `at` on a manual clock the server shares (`make` gets the unit's clock),
 * recording its writes (`prepare` runs before, unrecorded: what an earlier run left), and the
 * driver polling it as unit `unit`; with a battery device, once battery control is offered
 * with its lease of 30 min.
 */
export async function startOnSharedClock<D extends ModbusDevice>(
  at: number,
  make: (now: () => Date) => D,
  driver: Omit<DriverUnderTest, 'units' | 'clock'> & { unit: number; prepare?: ((unit: D) => void) | undefined },
) {
  const clock = new ManualClock(at);
  const unit = make(() => new Date(clock.now()));
  driver.prepare?.(unit);
  const device = recordWrites(unit);
  const { server, emulator } = await startDriver({ ...driver, units: new Map([[driver.unit, device]]), clock });
  if (driver.devices.some((d) => d.startsWith('battery_'))) await leaseOffered(server);
  return { clock, device, emulator, server };
}

/** Waits until `device` offers battery control, with its lease of 30 min on the device. */
export async function leaseOffered(server: TestServer, device = 'inverter_1'): Promise<void> {
  const lease = `${device}/battery_control_lease`;
  await valuesWhen(server, (v) => v.get(lease) === 1800, `${lease}: 30 min on the device`);
}

/**
 * Runs `run` with the link silent (nobody renews, no Normal can reach the device), then waits
 * for a request of the driver's to have reached the silent emulator meanwhile.
 */
export async function whileSilent(emulator: RunningEmulator, run: () => void | Promise<void>): Promise<void> {
  emulator.silence(true);
  try {
    const polled = emulator.nextRequest();
    await run();
    await within(polled, "a poll of the driver's reaching the silent emulator");
  } finally {
    emulator.silence(false);
  }
}

/**
 * The safeguards every driver has, checked from Normal: {@link assertLimitsEnforced}, then the
 * device told to refuse (`refuse`) and {@link assertRefusalAudited}; the mode stays Normal.
 */
export async function assertLimitsAndRefusal(
  server: TestServer,
  device: string,
  limits: { maxChargeW: number; minSoc: number },
  refuse: () => void,
  says?: RegExp,
): Promise<void> {
  await assertLimitsEnforced(server, device, limits);
  refuse();
  await assertRefusalAudited(server, device, says);
  await valuesWhen(server, (v) => v.get(`${device}/battery_control_mode`) === 'Normal', 'the mode still Normal');
}

/**
 * A device refusing the setting: the write answered 422 with the device's refusal (`says`),
 * audited as an error with the value asked for.
 */
export async function assertRefusalAudited(
  server: TestServer,
  device: string,
  says: RegExp = /the device refused/,
): Promise<void> {
  const refused = await write(server, `${device}/battery_control_mode`, 'Hold');
  assert.equal(refused.status, 422);
  assert.match(refused.body, says);
  const audited = await lastAudited(server, `${device}/battery_control_mode`);
  assert.deepEqual([audited.result, audited.new_value], ['error', 'Hold']);
}

/** The driver's own Normal (a forced command it found at its start, or its stop), audited as `via`. */
export async function assertNormalAudited(server: TestServer, device: string, via: string): Promise<void> {
  await assertModeAudited(server, device, ['ok', 'Normal', via]);
}

/**
 * A stop while Charge at `powerW`: driver `plugin` disabled writes Normal to `inverter_1` before
 * the connection closes, audited as its own; `read` shows the unit `[forced, normal]`.
 */
export async function assertStopWritesNormal<T>(
  server: TestServer,
  plugin: string,
  powerW: number,
  read: () => T,
  [forced, normal]: [NoInfer<T>, NoInfer<T>],
  says: string,
): Promise<void> {
  await command(server, 'inverter_1', { mode: 'charge', powerW, targetSoc: 90 });
  assert.equal(read(), forced);
  server.plugins.setEnabled(plugin, false);
  await server.plugins.settled();
  assert.equal(read(), normal, says);
  await assertNormalAudited(server, 'inverter_1', plugin);
}

/**
 * Nobody renews: once the lease is over on the site's clock too (`clock` moved on by
 * `minutes`), the driver shows Normal, then ends the forced program on the unit itself
 * (`ended` reads whether it did and what the unit holds, `what` names it).
 */
export async function assertLeaseEndedByDriver(
  server: TestServer,
  clock: ManualClock,
  minutes: number,
  ended: () => { done: boolean; seen: unknown },
  what: string,
): Promise<void> {
  clock.advance(minutes * MINUTE);
  await valuesWhen(server, (v) => v.get('inverter_1/battery_control_mode') === 'Normal', 'the lease shown as over');
  await pollUntil(() => Promise.resolve(ended()), what);
}

/**
 * A forced command left on the device (by another tool or a killed run), found at the driver's
 * start: ended through the write path and audited as the driver's Normal (`read` shows
 * `normal`); then a Discharge at 2400 W (`read` shows `discharging`) and the stop, which writes
 * Normal before the connection closes.
 */
export async function assertEndedAtStartAndStop<T>(
  server: TestServer,
  device: string,
  expected: { via: string; read: () => T; normal: NoInfer<T>; discharging: NoInfer<T> },
): Promise<void> {
  const { read, normal } = expected;
  await assertNormalAudited(server, device, expected.via);
  assert.deepEqual(read(), normal);
  await command(server, device, { mode: 'discharge', powerW: 2400, targetSoc: 20 });
  assert.deepEqual(read(), expected.discharging);
  await server.close();
  assert.deepEqual(read(), normal, 'Normal written at the stop, before the connection closed');
}

/** What {@link advance} moves and reads: a unit's clock, and the SOC the unit holds at its time now. */
export interface SocProbe {
  /** The unit's clock (the server's too where they share one). */
  clock: { advance(ms: number): void };
  /** The SOC the unit holds now (reading it brings its battery up to its clock's time), rounded as the server shows it. */
  soc: () => number;
  /** Where the server shows the SOC: each step waits until the server has read the unit's. */
  shown?: { server: TestServer; topic: string };
}

/**
 * Moves the unit's clock on by `minutes`, `stepMinutes` at a time (minute by minute unless
 * told), reading the SOC after each step and, with `probe.shown`, waiting until the server has
 * read it too; returns the readings.
 */
export async function advance(probe: SocProbe, minutes: number, stepMinutes = 1): Promise<number[]> {
  const socs: number[] = [];
  for (let moved = 0; moved < minutes; moved += stepMinutes) {
    probe.clock.advance(Math.min(stepMinutes, minutes - moved) * MINUTE);
    const soc = probe.soc();
    socs.push(soc);
    if (probe.shown) {
      const { server, topic } = probe.shown;
      await valuesWhen(server, (v) => v.get(topic) === soc, `${topic} at ${soc}: the server to read SOC ${soc}`);
    }
  }
  return socs;
}

/** {@link advance} in one step of `minutes`: the SOC the unit holds then, once the server read it. */
export async function socAfter(probe: SocProbe, minutes: number): Promise<number> {
  return (await advance(probe, minutes, minutes)).at(-1)!;
}

/**
 * Moves the unit's clock on `stepMinutes` at a time (at most 60 steps) until the server has read
 * the SOC `to` from `from` (a charge must raise it from the first step), then waits until the
 * driver holds the battery there, as `holding` reads the unit's registers (`what` names it);
 * returns the readings.
 */
export async function runToTarget(
  probe: SocProbe,
  [from, target]: [from: number, to: number],
  stepMinutes: number,
  holding: { now: () => boolean; what: string },
): Promise<number[]> {
  const rising = target > from;
  const socs: number[] = [];
  const reached = () => socs.length > 0 && (rising ? socs.at(-1)! >= target : socs.at(-1)! <= target);
  // Until the server read the target; the driver's hold follows in the same poll.
  while (socs.length < 60 && !reached()) socs.push(await socAfter(probe, stepMinutes));
  if (rising) assert.ok(socs[0]! > from, `SOC rises: ${socs.join(' ')}`);
  await eventually(() => Promise.resolve(holding.now() ? true : undefined), holding.what);
  return socs;
}

/**
 * A forced command nobody renews (the link silent: {@link whileSilent}) running out on the unit
 * by its own clock: still forced a second before the end of the `leaseMs` it took (`forced`
 * asserts it, the battery charging meanwhile), back to its own behaviour a second after
 * (`back` asserts it, from its registers), and half an hour on the night load discharging the
 * battery (`again` says what the unit does then).
 */
export async function assertRunsOutSilently(
  emulator: RunningEmulator,
  probe: Pick<SocProbe, 'clock'> & { soc: () => number },
  leaseMs: number,
  unit: { forced: () => void; back: () => void; again: string },
): Promise<void> {
  await whileSilent(emulator, () => {
    probe.clock.advance(leaseMs - 1000);
    unit.forced();
    const soc = probe.soc();
    assert.ok(soc > 50, `charging meanwhile: ${soc}`);
    probe.clock.advance(2000);
    unit.back();
    probe.clock.advance(30 * MINUTE);
    const later = probe.soc();
    assert.ok(later < soc, `${unit.again}: the night load discharges the battery (${soc} -> ${later} %)`);
  });
}

/** The newest audit entry of `device`'s mode: its result, value and who wrote it (`via`). */
export async function assertModeAudited(
  server: TestServer,
  device: string,
  expected: [result: AuditEntry['result'], value: string, via: string],
): Promise<void> {
  const entry = await lastAudited(server, `${device}/battery_control_mode`);
  assert.deepEqual([entry.result, entry.new_value, entry.via], expected);
}

/**
 * `inverter_1`'s `name` written `value` through the API, which must be accepted: returns the
 * writes the unit took for it (its write log, emptied before).
 */
export async function writesFor(
  server: TestServer,
  unit: WriteLog,
  name: string,
  value: string,
): Promise<RegisterWrite[]> {
  unit.writes.length = 0;
  const answer = await write(server, `inverter_1/${name}`, value);
  assert.equal(answer.status, 200, `inverter_1/${name} = ${value}: ${answer.body}`);
  return unit.writes;
}

/**
 * A renewal of the Charge in force `minutes` on, on the clock the server and the unit share
 * (`why` names the time): the mode written again as the planner does, which must be accepted;
 * returns the writes the unit took for it.
 */
export async function renewCharge(
  server: TestServer,
  clock: ManualClock,
  unit: WriteLog,
  why: string,
  minutes = 15,
): Promise<RegisterWrite[]> {
  unit.writes.length = 0;
  clock.advance(minutes * MINUTE);
  assert.equal((await write(server, 'inverter_1/battery_control_mode', 'Charge')).status, 200, why);
  return unit.writes.splice(0);
}

/** After a first poll: `device` offers no battery control and shows no battery limits. */
export async function assertNoBatteryControl(server: TestServer, device: string): Promise<void> {
  const values = await valuesWhen(server, (v) => typeof v.get(`${device}/pv_power`) === 'number', `${device} polled`);
  assert.equal(values.has(`${device}/battery_control_mode`), false);
  assert.equal(values.has(`${device}/battery_capacity`), false);
}
