/*
 * Battery control on a Deye / Sunsynk hybrid through its time-of-use program ("System work
 * mode" timer): six time points, each with a battery power, a SOC and a grid-charge flag,
 * and the "use timer" switch. Every command writes the same values into all six slots, so
 * the program holds whatever the time of day and needs no rewrite at slot boundaries.
 * Where each model keeps them is its `TouRegisters` (models.ts), known once the driver has
 * identified the unit.
 */
import {
  batteryControl,
  DeviceRefusedError,
  type batteryConfigSchema,
  type BatteryCommand,
  type BatteryControl,
  type PluginStore,
  type z,
} from '@heliograph/plugins-sdk';
import type { ModbusClient } from '@heliograph/plugins-sdk/connections';
import type { TouRegisters } from './models.js';

const SLOTS = 6;
const PROGRAM_LENGTH = 5 * SLOTS;

/** What one command writes: the program's 30 words, the timer bit, grid charge and its current. */
interface Plan {
  program: number[];
  useTimer: boolean;
  /** null leaves the register as it is. */
  gridCharge: boolean | null;
  gridChargeA: number | null;
}

/** The program for `command`, built on the words read from the device (voltages and other bits kept). */
export function planFor(
  command: BatteryCommand,
  now: { program: readonly number[]; soc: number; voltage: number; minSoc: number; maxCurrentA: number },
): Plan {
  const program = [...now.program];
  const set = (block: number, value: (old: number) => number) => {
    for (let i = 0; i < SLOTS; i++) program[block * SLOTS + i] = value(program[block * SLOTS + i]!);
  };
  const socOf = { normal: now.minSoc, hold: Math.max(now.minSoc, now.soc), charge: 0, discharge: 0 };
  const soc = command.mode === 'charge' || command.mode === 'discharge' ? command.targetSoc : socOf[command.mode];
  const gridCharge = command.mode === 'charge';
  // The slot power caps the battery's discharge: none in hold; normal keeps what was there.
  if (command.mode !== 'normal') set(1, () => (command.mode === 'hold' ? 0 : Math.round(command.powerW)));
  set(3, () => Math.round(soc));
  set(4, (old) => (old & ~1) | (gridCharge ? 1 : 0));
  const gridChargeA = gridCharge
    ? Math.min(now.maxCurrentA, Math.max(1, Math.floor(command.powerW / Math.max(1, now.voltage))))
    : null;
  return { program, useTimer: command.mode !== 'normal', gridCharge: gridCharge ? true : null, gridChargeA };
}

/**
 * Declares battery control for a Deye inverter: `apply` reads the program, writes the new
 * one, then the timer switch (and grid charge with its current for `charge`), and reads it
 * all back; a register that does not hold what was written fails the write.
 */
export function deyeBatteryControl(args: {
  modbus: ModbusClient;
  unitId: number;
  timeoutMs: number;
  /** The identified model's programme and battery registers. */
  tou: TouRegisters;
  battery: z.output<typeof batteryConfigSchema>;
  /** Keeps the command in force across restarts. */
  store: PluginStore;
  initial: BatteryCommand | undefined;
}): BatteryControl {
  const { modbus, unitId, timeoutMs, battery, tou: L } = args;
  const read = async (address: number, count: number, signal: AbortSignal) =>
    modbus.readHoldingRegisters({ unitId, address, count, timeoutMs, signal });
  const write = async (address: number, values: number[], signal: AbortSignal) =>
    modbus.writeRegisters({ unitId, address, values, timeoutMs, signal });
  const check = async (address: number, expected: readonly number[], signal: AbortSignal) => {
    const got = await read(address, expected.length, signal);
    const at = expected.findIndex((value, i) => got[i] !== value);
    if (at >= 0)
      throw new DeviceRefusedError({
        answer: `register ${address + at} reads ${got[at]} after writing ${expected[at]}`,
      });
  };

  return batteryControl({
    limits: { ...battery, modes: ['normal', 'hold', 'charge', 'discharge'] },
    store: args.store,
    initial: args.initial,
    apply: async ({ command, signal }) => {
      const [voltageWord] = await read(L.batteryVoltage, 1, signal);
      const [soc] = await read(L.batterySoc, 1, signal);
      const plan = planFor(command, {
        program: await read(L.times, PROGRAM_LENGTH, signal),
        soc: soc!,
        voltage: voltageWord! * L.batteryVoltageScale,
        minSoc: battery.minSoc,
        maxCurrentA: L.maxGridChargeA,
      });
      await write(L.times, plan.program, signal);
      const [timer] = await read(L.enable, 1, signal);
      const timerWord = (timer! & ~1) | (plan.useTimer ? 1 : 0);
      if (plan.gridChargeA !== null) await write(L.gridChargeCurrent, [plan.gridChargeA], signal);
      if (plan.gridCharge !== null) {
        const [enabled] = await read(L.gridChargeEnabled, 1, signal);
        await write(L.gridChargeEnabled, [enabled! | 1], signal);
        await check(L.gridChargeEnabled, [enabled! | 1], signal);
      }
      await write(L.enable, [timerWord], signal);
      await check(L.times, plan.program, signal);
      await check(L.enable, [timerWord], signal);
      if (plan.gridChargeA !== null) await check(L.gridChargeCurrent, [plan.gridChargeA], signal);
    },
  });
}
