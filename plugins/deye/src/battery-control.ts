/*
 * Battery control on a Deye / Sunsynk hybrid through its time-of-use program ("System work
 * mode" timer), each forced command a lease on the device: one slot forces the battery from
 * the device's time now until the lease's end, the rest of the day is self-use
 * (tou-program.ts), so the inverter is back to normal by itself when nobody renews it; the
 * program runs only on the days the window covers by the inverter's calendar, so one left
 * behind comes round again a week later at the most. Normal switches the timer off. Every
 * write sends only the registers whose words change: a renewal moves one slot time (and, once
 * a day, adds tomorrow to the days). Where each model keeps the program is its `TouRegisters`
 * (models.ts), known once the driver has identified the unit.
 */
import {
  DeviceRefusedError,
  polledBatteryControl,
  type BatteryCommand,
  type BatteryConfig,
  type BatteryMode,
  type PolledBatteryControl,
} from '@heliograph/plugins-sdk';
import { contextOf, type ModbusClient, type UnitControlOptions } from '@heliograph/plugins-sdk/connections';
import type { TouRegisters } from './models.js';
import {
  changedRuns,
  deviceTime,
  leaseProgram,
  leaseTimer,
  programMode,
  PROGRAM_LENGTH,
  runsToday,
  SLOTS,
  TIMER,
  type DeviceTime,
} from './tou-program.js';

/** What battery control reads before it writes. */
interface DeviceState {
  /** The registers from the grid charge current to the last flag register, as read. */
  block: number[];
  clock: number[];
  soc: number;
  voltage: number;
}

/** The block of registers battery control reads and writes: from the grid charge current to the last flag register. */
class TouIo {
  readonly base: number;
  private readonly length: number;

  constructor(
    private readonly modbus: ModbusClient,
    private readonly unitId: number,
    private readonly timeoutMs: number,
    readonly L: TouRegisters,
  ) {
    this.base = L.gridChargeCurrent;
    this.length = L.flags + SLOTS - this.base;
  }

  /** Where `address` is in the block. */
  at(address: number): number {
    return address - this.base;
  }

  read(address: number, count: number, signal: AbortSignal): Promise<number[]> {
    return this.modbus.readHoldingRegisters({ unitId: this.unitId, address, count, timeoutMs: this.timeoutMs, signal });
  }

  block(signal: AbortSignal): Promise<number[]> {
    return this.read(this.base, this.length, signal);
  }

  async state(signal: AbortSignal): Promise<DeviceState> {
    const block = await this.block(signal);
    const clock = await this.read(this.L.clock, 3, signal);
    const [voltage, soc] = await this.read(this.L.batteryVoltage, 2, signal);
    return { block, clock, soc: soc!, voltage: voltage! * this.L.batteryVoltageScale };
  }

  /** Writes the words of `next` that differ from `old`, the timer switch last, then reads them back. */
  async writeBlock(old: readonly number[], next: readonly number[], signal: AbortSignal): Promise<void> {
    const write = (run: { address: number; values: number[] }) =>
      this.modbus.writeRegisters({ unitId: this.unitId, ...run, timeoutMs: this.timeoutMs, signal });
    const runs = changedRuns(this.base, old, next);
    const enable = this.L.enable;
    const timer = runs.filter((r) => r.address <= enable && r.address + r.values.length > enable);
    for (const run of runs) if (!timer.includes(run)) await write(run);
    for (const run of timer) await write(run);
    if (runs.length === 0) return;
    const got = await this.block(signal);
    const at = next.findIndex((word, i) => word !== old[i] && got[i] !== word);
    if (at >= 0)
      throw new DeviceRefusedError({ answer: `register ${this.base + at} reads ${got[at]} after writing ${next[at]}` });
  }

  /**
   * Normal: the timer off, one register; the day bits are left as they are (with the timer off
   * they do nothing, and the next lease writes the days it needs with the timer bit).
   */
  async timerOff(signal: AbortSignal): Promise<void> {
    const old = await this.block(signal);
    const next = [...old];
    next[this.at(this.L.enable)] = old[this.at(this.L.enable)]! & ~TIMER;
    await this.writeBlock(old, next, signal);
  }

  /** What the device does now (`programMode`); null when its clock holds no date and time. */
  async mode(minSoc: number, signal: AbortSignal): Promise<BatteryMode | null> {
    const block = await this.block(signal);
    const timer = block[this.at(this.L.enable)]!;
    if ((timer & TIMER) === 0) return 'normal';
    let now: DeviceTime;
    try {
      now = deviceTime(await this.read(this.L.clock, 3, signal));
    } catch {
      return null;
    }
    return programMode({
      timer,
      gridCharge: (block[this.at(this.L.gridChargeEnabled)]! & 1) !== 0,
      program: block.slice(this.at(this.L.times), this.at(this.L.times) + PROGRAM_LENGTH),
      now,
      minSoc,
    });
  }
}

/**
 * The block with a lease for `command` (tou-program.ts), the timer on for the days the window
 * covers (`leaseTimer`), and for Charge grid charge enabled with a current for the power; a
 * renewal of the same charge keeps its current (no write as the battery's voltage rises).
 */
function leaseBlock(args: {
  io: TouIo;
  state: DeviceState;
  command: BatteryCommand;
  leaseMs: number;
  battery: BatteryConfig;
  ratedW: number;
}): number[] {
  const { io, state, command, battery } = args;
  const { L } = io;
  const old = state.block;
  const next = [...old];
  /** A slot power in the registers' units, at most the unit's rated power and the register's range. */
  const powerWord = (watts: number) =>
    Math.min(L.maxPowerWord, Math.round(Math.min(watts, args.ratedW) / L.powerUnitW));
  const now = deviceTime(state.clock);
  // A program that does not run today is not running: a renewal keeps only what runs now.
  const timerOn = runsToday(old[io.at(L.enable)]!, now);
  const lease = leaseProgram({
    command,
    program: old.slice(io.at(L.times), io.at(L.times) + PROGRAM_LENGTH),
    timerOn,
    now,
    leaseMs: args.leaseMs,
    soc: state.soc,
    minSoc: battery.minSoc,
    powerWord: powerWord(command.powerW),
    fullPowerWord: powerWord(battery.maxDischargeW),
  });
  next.splice(io.at(L.times), PROGRAM_LENGTH, ...lease.program);
  if (command.mode === 'charge') {
    next[io.at(L.gridChargeEnabled)]! |= 1;
    const slotPower = io.at(L.power);
    const same = timerOn && old[slotPower] === next[slotPower] && (old[io.at(L.flags)]! & 1) === 1;
    const amps = Math.min(L.maxGridChargeA, Math.max(1, Math.floor(command.powerW / Math.max(1, state.voltage))));
    if (!(same && old[io.at(L.gridChargeCurrent)]! > 0)) next[io.at(L.gridChargeCurrent)] = amps;
  }
  next[io.at(L.enable)] = leaseTimer({ old: old[io.at(L.enable)]!, days: lease.days, weekday: now.weekday });
  return next;
}

/**
 * Declares battery control for a Deye inverter: the SDK's polled control (the start's reconcile,
 * the end of a program kept past its lease, the stop's Normal) around the program's writes, each
 * reading the program, the device's clock and the battery, writing the registers that change
 * (the timer switch last) and reading them back; a register that does not hold what was written
 * fails the write. The slot carries the target SOC, so the inverter stops there by itself.
 */
export function deyeBatteryControl(
  args: UnitControlOptions & {
    /** The identified model's programme and battery registers. */
    tou: TouRegisters;
    /** The unit's rated power (W): the largest slot power. */
    ratedW: number;
  },
): PolledBatteryControl {
  const { battery, now } = args;
  const io = new TouIo(args.modbus, args.unitId, args.timeoutMs, args.tou);

  const program = async (command: BatteryCommand, until: number | null, signal: AbortSignal) => {
    if (command.mode === 'normal' || until === null) return io.timerOff(signal);
    const state = await io.state(signal);
    const next = leaseBlock({ io, state, command, leaseMs: until - now(), battery, ratedW: args.ratedW });
    await io.writeBlock(state.block, next, signal);
  };

  return polledBatteryControl({
    ...contextOf(args),
    limits: { ...battery, modes: ['normal', 'hold', 'charge', 'discharge'] },
    boundedOnDevice: true,
    stopsAtTarget: true,
    program: ({ command, until, signal }) => program(command, until, signal),
    read: ({ signal }) => io.mode(battery.minSoc, signal),
    // The device is normal by itself; its timer off too, so the slot cannot come round on the same weekday.
    lapsed: async ({ signal }) => {
      await io.timerOff(signal);
      args.log('the battery control lease ran out with nobody renewing it: the timer is switched off');
    },
  });
}
