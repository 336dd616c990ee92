/*
 * What the battery-control driver tests share: the driver started against its emulator, the
 * emulator's units recording their writes, commands written through POST /api/v1/metrics (the
 * API's write path), and the audit entries they leave. A family's test file keeps what only its
 * device does: its registers, its readings and its evidence.
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
  const entry = await lastAudited(server, `${device}/battery_control_mode`);
  assert.deepEqual([entry.result, entry.new_value, entry.via], ['ok', 'Normal', via]);
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

/** After a first poll: `device` offers no battery control and shows no battery limits. */
export async function assertNoBatteryControl(server: TestServer, device: string): Promise<void> {
  const values = await valuesWhen(server, (v) => typeof v.get(`${device}/pv_power`) === 'number', `${device} polled`);
  assert.equal(values.has(`${device}/battery_control_mode`), false);
  assert.equal(values.has(`${device}/battery_capacity`), false);
}
