/*
 * Battery control on a Huawei SUN2000 with a LUNA2000 through its forcible charge/discharge,
 * as wlcrs/huawei-solar-lib (src/huawei_solar/registers.py) places the registers and the Home
 * Assistant integration built on it (wlcrs/huawei_solar services.py, `forcible_charge` and
 * `forcible_discharge`) writes them: the power (47247 charge, 47249 discharge, U32 W), the
 * period (47083, minutes), the setting mode (47246: 0 by duration) and then the command (47100:
 * 1 charge, 2 discharge); `stop_forcible_charge` writes 47100 = 0.
 *
 * The lease on the device is the forcible period: every forced command runs "by duration"
 * for the whole minutes left until its lease ends (at most 30), after which the inverter goes
 * back to its working mode (47086, left as the owner set it) by itself. A renewal writes the
 * period and the command again, which restarts the device's countdown (evcc-io/evcc's
 * huawei-sun2000-hybrid.yaml relies on the same, writing both every 30 s); the powers and the
 * setting mode are written only when they change. The SOC setting mode (47246 = 1, target
 * 47101) has no end on the device and is never used: the driver holds the battery itself once
 * a charge or discharge reached its target.
 *
 * Hold is a forcible discharge at 0 W, bounded on the device like the others: the battery
 * neither discharges nor charges (PV surplus is exported). evcc's Huawei template held the
 * battery this way before it moved on ("setting a forced discharge with forced discharge power
 * set to 0", evcc-io/evcc issue #30620; issue #15647: the battery then "does not charge any
 * more"); what it moved to, the maximum discharging power 47077 = 0 (evcc pull request #25024,
 * which lets PV charge), is a stored setting with no end on the device, so it is not used.
 * Normal is 47100 = 0 alone.
 */
import {
  BATTERY_LEASE_MS,
  DeviceRefusedError,
  polledBatteryControl,
  type BatteryCommand,
  type BatteryConfig,
  type BatteryLimits,
  type BatteryMode,
  type MetricValue,
  type PolledBatteryControl,
} from '@heliograph/plugins-sdk';
import { contextOf, type ControlContext, type ModbusClient } from '@heliograph/plugins-sdk/connections';
import { FORCIBLE } from './register-map.js';

/** The longest forcible period written, minutes: the SDK's lease. */
export const MAX_PERIOD_MIN = BATTERY_LEASE_MS / 60_000;

/** What the forcible charge/discharge registers hold. */
export interface Forcible {
  /** 47083, minutes. */
  period: number;
  /** 47100: 0 stop, 1 charge, 2 discharge. */
  command: number;
  /** 47246: 0 by duration, 1 to a SOC. */
  settingMode: number;
  /** 47247, W. */
  chargePower: number;
  /** 47249, W. */
  dischargePower: number;
}

/** In the order a command is written: the power, the period, the setting mode, the command last (as services.py does). */
const ORDER = ['chargePower', 'dischargePower', 'period', 'settingMode', 'command'] as const;
const NAMES: Record<keyof Forcible, string> = {
  period: 'the forcible period',
  command: 'the forcible command',
  settingMode: 'the forcible setting mode',
  chargePower: 'the forcible charge power',
  dischargePower: 'the forcible discharge power',
};
const WIDE = new Set<keyof Forcible>(['chargePower', 'dischargePower']);

/**
 * The forcible period (47083) for a lease ending at `until`: the minutes left, rounded up
 * (the device counts whole minutes), 1..30.
 *
 * @example
 * periodMinutes(now + 30 * 60_000 - 5, now); // 30
 */
export function periodMinutes(until: number, now: number): number {
  return Math.min(MAX_PERIOD_MIN, Math.max(1, Math.ceil((until - now) / 60_000)));
}

/** The registers a command sets: Normal stops; the others run by duration for `periodMin`. */
export function forciblePlan(command: BatteryCommand, periodMin: number): Partial<Forcible> {
  const forced = { period: periodMin, settingMode: 0 };
  switch (command.mode) {
    case 'normal':
      return { command: 0 };
    case 'hold':
      return { dischargePower: 0, ...forced, command: 2 };
    case 'charge':
      return { chargePower: Math.round(command.powerW), ...forced, command: 1 };
    case 'discharge':
      return { dischargePower: Math.round(command.powerW), ...forced, command: 2 };
  }
}

/**
 * The registers to write, in order, to take the device from `found` to `plan`: those that
 * differ, plus the period and the command of a forced plan, whose write restarts the device's
 * countdown (the renewal).
 *
 * @example
 * forcibleWrites(found, forciblePlan({ mode: 'charge', powerW: 2000, targetSoc: 90 }, 30)); // a renewal: ['period', 'command']
 */
export function forcibleWrites(found: Forcible, plan: Partial<Forcible>): Array<keyof Forcible> {
  const forced = plan.command !== 0;
  return ORDER.filter(
    (key) =>
      plan[key] !== undefined && (plan[key] !== found[key] || (forced && (key === 'period' || key === 'command'))),
  );
}

/**
 * Why the registers read after the writes (`read`) do not hold `plan`, or null. A period that
 * counts down in place (0 < read <= written) holds.
 */
export function forcibleMismatch(read: Forcible, plan: Partial<Forcible>): string | null {
  for (const key of ORDER) {
    const wanted = plan[key];
    if (wanted === undefined) continue;
    const got = read[key];
    const counting = key === 'period' && wanted > 0 && got > 0 && got <= wanted;
    if (got !== wanted && !counting)
      return `${NAMES[key]} (register ${FORCIBLE[key]}) reads ${got} after writing ${wanted}`;
  }
  return null;
}

/** What the forcible registers make the battery do (either command at 0 W holds it); null for a command this driver does not know. */
export function forcibleMode(forcible: Forcible): BatteryMode | null {
  if (forcible.command === 0) return 'normal';
  if (forcible.command === 1) return forcible.chargePower === 0 ? 'hold' : 'charge';
  if (forcible.command === 2) return forcible.dischargePower === 0 ? 'hold' : 'discharge';
  return null;
}

/**
 * The limits: the config's where given, else the device's: the storage's rated capacity (37758),
 * the maximum charging and discharging power (47075, 47077) and the end-of-discharge SOC (47082),
 * as one poll read them. Null when neither says how large the battery is (no LUNA2000).
 */
export function huaweiLimits(
  config: BatteryConfig | undefined,
  read: { battery: Record<string, MetricValue>; inverter: Record<string, MetricValue> },
): BatteryLimits | null {
  const modes = ['normal', 'hold', 'charge', 'discharge'] as const;
  if (config) return { ...config, modes };
  const number = (value: MetricValue | undefined) => (typeof value === 'number' ? value : 0);
  const capacityKwh = number(read.battery.rated_capacity);
  if (!(capacityKwh > 0)) return null;
  return {
    capacityKwh,
    maxChargeW: number(read.inverter.max_charging_power),
    maxDischargeW: number(read.inverter.max_discharging_power),
    minSoc: number(read.inverter.discharging_cutoff_soc),
    modes,
  };
}

/** Reads and writes the forcible registers of one unit. */
class ForcibleIo {
  constructor(
    private readonly modbus: ModbusClient,
    private readonly unitId: number,
    private readonly timeoutMs: number,
    /** Waits, where needed, for the inverter to take requests after a (re)connect. */
    private readonly settle: (signal: AbortSignal) => Promise<void>,
  ) {}

  async read(signal: AbortSignal): Promise<Forcible> {
    await this.settle(signal);
    const request = { unitId: this.unitId, timeoutMs: this.timeoutMs, signal };
    const low = await this.modbus.readHoldingRegisters({ ...request, address: FORCIBLE.period, count: 19 });
    const high = await this.modbus.readHoldingRegisters({ ...request, address: FORCIBLE.settingMode, count: 5 });
    const u32 = (words: number[], at: number) => words[at]! * 0x10000 + words[at + 1]!;
    return {
      period: low[0]!,
      command: low[FORCIBLE.command - FORCIBLE.period]!,
      settingMode: high[0]!,
      chargePower: u32(high, FORCIBLE.chargePower - FORCIBLE.settingMode),
      dischargePower: u32(high, FORCIBLE.dischargePower - FORCIBLE.settingMode),
    };
  }

  /** One register (function 06) or, for the U32 powers, two (function 16), as the library writes them. */
  async write(key: keyof Forcible, value: number, signal: AbortSignal): Promise<void> {
    const request = { unitId: this.unitId, address: FORCIBLE[key], timeoutMs: this.timeoutMs, signal };
    if (WIDE.has(key))
      await this.modbus.writeRegisters({ ...request, values: [Math.floor(value / 0x10000), value & 0xffff] });
    else await this.modbus.writeRegister({ ...request, value });
  }
}

/** Sets the forcible registers for `command` (its lease ending at `until`): reads them, writes what it must, reads them back. */
async function writeForcible(args: {
  io: ForcibleIo;
  command: BatteryCommand;
  until: number | null;
  now: number;
  signal: AbortSignal;
}): Promise<void> {
  const { io, command, until, signal } = args;
  const found = await io.read(signal);
  const plan = forciblePlan(command, until === null ? 0 : periodMinutes(until, args.now));
  const keys = forcibleWrites(found, plan);
  if (keys.length === 0) return;
  for (const key of keys) await io.write(key, plan[key]!, signal);
  const wrong = forcibleMismatch(await io.read(signal), plan);
  if (wrong) throw new DeviceRefusedError({ answer: wrong });
}

/**
 * Battery control through the forcible charge/discharge: the SDK's polled control (the start's
 * reconcile, the hold at the target, the end of a command kept past its lease, the stop's
 * Normal) around the forcible registers' writes.
 */
export function huaweiBatteryControl(
  args: ControlContext & {
    modbus: ModbusClient;
    unitId: number;
    timeoutMs: number;
    settle: (signal: AbortSignal) => Promise<void>;
    limits: BatteryLimits;
  },
): PolledBatteryControl {
  const { now } = args;
  const io = new ForcibleIo(args.modbus, args.unitId, args.timeoutMs, args.settle);
  return polledBatteryControl({
    ...contextOf(args),
    limits: args.limits,
    boundedOnDevice: true,
    read: async ({ signal }) => forcibleMode(await io.read(signal)),
    program: ({ command, until, signal }) => writeForcible({ io, command, until, now: now(), signal }),
  });
}
