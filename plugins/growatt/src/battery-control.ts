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
  DeviceRefusedError,
  polledBatteryControl,
  type BatteryCommand,
  type PolledBatteryControl,
} from '@heliograph/plugins-sdk';
import { contextOf, type UnitControlOptions } from '@heliograph/plugins-sdk/connections';
import { BLOCK_LENGTH, BLOCK_START, blockWrites, CLOCK_START, deviceTime, leaseBlock, slotMode } from './time-slots.js';

/**
 * Battery control for a Growatt storage unit: the SDK's polled control (the start's reconcile,
 * the end of a slot kept past its lease, the stop's Normal) around the slot's writes: each reads
 * the control block and the device's clock, writes the words that change (slot switches last)
 * and reads them back. The slot carries the stop SOC, so the unit stops at the target by itself.
 */
export function growattBatteryControl(args: UnitControlOptions): PolledBatteryControl {
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

  const polled: PolledBatteryControl = polledBatteryControl({
    ...contextOf(args),
    limits: { ...battery, modes: ['normal', 'hold', 'charge', 'discharge'] },
    boundedOnDevice: true,
    stopsAtTarget: true,
    program: ({ command, until, signal }) => program(command, until, signal),
    read: async ({ signal }) => {
      const words = await block(signal);
      if (slotMode(words, 0) === 'normal') return 'normal';
      try {
        return slotMode(words, (await clock(signal)).minute);
      } catch {
        return null;
      }
    },
    // The unit is back in load first by itself; slot 1 off, so it does not come round again tomorrow.
    lapsed: async ({ signal }) => {
      await program({ ...polled.control.current(), mode: 'normal' }, null, signal);
      args.log('the battery control lease ran out with nobody renewing it: slot 1 switched off');
    },
  });
  return polled;
}
