/*
 * Battery control on a Growatt SPH or SPA through slot 1 of its battery-first and grid-first
 * time slots (time-slots.ts), each forced command a lease on the device: the slot runs from
 * the device's minute now to the lease's end by the device's own clock, after which the unit is
 * back in load first (its normal self) by itself. These registers sit in the unit's EEPROM, so
 * every write sends only the words that change (a renewal: the slot's stop word) and reads them
 * back; a word that does not hold what was written fails the write. A lease run out with nobody
 * renewing it is cleared at the next poll (slot 1 off), so the slot does not come round again
 * the next day at the same time.
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
import { BLOCK_LENGTH, BLOCK_START, blockWrites, CLOCK_START, deviceTime, leaseBlock, slotMode } from './time-slots.js';

export interface GrowattBatteryControl {
  control: BatteryControl;
  /**
   * For each successful poll: once a lease has run out with nobody renewing it, the unit is
   * already in load first by itself; this switches slot 1 off, so it does not run again tomorrow.
   */
  afterPoll(signal: AbortSignal): Promise<void>;
}

/** Runs tasks one at a time, in the order given. */
function serial(): <T>(task: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = queue.then(task);
    queue = run.catch(() => undefined);
    return run;
  };
}

/**
 * Declares battery control for a Growatt storage unit: `apply` reads the control block and the
 * device's clock, writes the words that change (slot switches last) and reads them back.
 */
export function growattBatteryControl(args: {
  modbus: ModbusClient;
  unitId: number;
  timeoutMs: number;
  battery: z.output<typeof batteryConfigSchema>;
  /** Keeps the power and target (never the mode) across restarts. */
  store: PluginStore;
  initial: BatteryCommand | undefined;
  now: () => number;
  log: (message: string) => void;
}): GrowattBatteryControl {
  const { modbus, unitId, timeoutMs, battery, now } = args;
  const read = (address: number, count: number, signal: AbortSignal) =>
    modbus.readHoldingRegisters({ unitId, address, count, timeoutMs, signal });
  const block = (signal: AbortSignal) => read(BLOCK_START, BLOCK_LENGTH, signal);
  const clock = async (signal: AbortSignal) => deviceTime(await read(CLOCK_START, 6, signal));

  const write = async (old: number[], next: number[], signal: AbortSignal) => {
    const runs = blockWrites(old, next);
    for (const run of runs) await modbus.writeRegisters({ unitId, ...run, timeoutMs, signal });
    if (runs.length === 0) return;
    const got = await block(signal);
    const at = next.findIndex((word, i) => word !== old[i] && got[i] !== word);
    if (at >= 0)
      throw new DeviceRefusedError({
        answer: `register ${BLOCK_START + at} reads ${got[at]} after writing ${next[at]}`,
      });
  };

  /** Writes `command` with a lease ending at `until` (ms, site clock); null for normal. */
  const program = async (command: BatteryCommand, until: number | null, signal: AbortSignal) => {
    const old = await block(signal);
    const forced = command.mode !== 'normal' && until !== null;
    const next = leaseBlock({
      command: forced ? command : { ...command, mode: 'normal' },
      block: old,
      now: forced ? await clock(signal) : { minute: 0, second: 0 },
      leaseMs: forced ? until - now() : 0,
      maxChargeW: battery.maxChargeW,
      maxDischargeW: battery.maxDischargeW,
    });
    await write(old, next, signal);
  };

  const exclusive = serial();
  /** The end (site clock) of the lease this driver last programmed; null when none is in force. */
  let programmedUntil: number | null = null;

  const control = batteryControl({
    limits: { ...battery, modes: ['normal', 'hold', 'charge', 'discharge'] },
    boundedOnDevice: true,
    now,
    store: args.store,
    initial: args.initial,
    apply: ({ command, until, signal }) =>
      exclusive(async () => {
        await program(command, until, signal);
        programmedUntil = until;
      }),
    read: async ({ signal }) => {
      const words = await block(signal);
      if (slotMode(words, 0) === 'normal') return 'normal';
      try {
        return slotMode(words, (await clock(signal)).minute);
      } catch {
        return null;
      }
    },
  });

  const lapsed = () => programmedUntil !== null && now() >= programmedUntil;
  return {
    control,
    afterPoll: async (signal) => {
      if (!lapsed()) return;
      await exclusive(async () => {
        if (!lapsed()) return;
        await program({ ...control.current(), mode: 'normal' }, null, signal);
        programmedUntil = null;
        args.log('the battery control lease ran out with nobody renewing it: slot 1 switched off');
      });
    },
  };
}
