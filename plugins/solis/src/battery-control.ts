/*
 * Battery control on a Solis hybrid through its remote control registers (remote-control.ts):
 * each forced command is a force charge or discharge that the inverter drops by itself when
 * its RC timeout (43282, minutes) runs out, written to end at the lease's end at the latest;
 * the planner's renewal writes 43135 again (the inverter restarts its countdown), nothing
 * else. The inverter knows no target SOC: the driver holds the battery (a force at 0 W) once a
 * charge or discharge reached its target. Firmware that drops a force before its timeout
 * (Pho3niX90/solis_modbus issues #158, #336, #352: after about 5 minutes) is forced again by
 * the next poll while the lease runs, at most once a minute, never past the lease's end.
 */
import {
  DeviceRefusedError,
  polledBatteryControl,
  type BatteryCommand,
  type PolledBatteryControl,
} from '@heliograph/plugins-sdk';
import { contextOf, type ModbusClient, type UnitControlOptions } from '@heliograph/plugins-sdk/connections';
import { GRID_CHARGE_BIT } from './register-map.js';
import { RC, rcMismatch, rcMode, rcPlan, rcWrites, timeoutMinutes, RC_OFF, type RcWords } from './remote-control.js';

/** The holding block read before a write: the storage control switch (43110) through 43136. */
const BLOCK = { address: 43110, count: RC.chargePower - 43110 + 1 };
/** Looking for (and forcing again) a force the inverter dropped early: at most this often. */
const REFORCE_MS = 60_000;

/** What the inverter holds: the RC registers and the storage control switch. */
interface RcState {
  words: RcWords;
  storageMode: number;
}

class RcIo {
  constructor(
    private readonly modbus: ModbusClient,
    private readonly unitId: number,
    private readonly timeoutMs: number,
    private readonly log: (message: string) => void,
  ) {}

  private read(address: number, count: number, signal: AbortSignal): Promise<number[]> {
    return this.modbus.readHoldingRegisters({ unitId: this.unitId, address, count, timeoutMs: this.timeoutMs, signal });
  }

  async state(signal: AbortSignal): Promise<RcState> {
    const block = await this.read(BLOCK.address, BLOCK.count, signal);
    const [timeout] = await this.read(RC.timeout, 1, signal);
    const at = (address: number) => block[address - BLOCK.address]!;
    return {
      storageMode: at(43110),
      words: {
        mode: at(RC.mode),
        chargePower: at(RC.chargePower),
        dischargePower: at(RC.dischargePower),
        timeout: timeout!,
      },
    };
  }

  /** Sets the RC registers for `command` with a lease ending at `until` (null: Normal) at `now`, the site's time. */
  async program(command: BatteryCommand, until: number | null, now: number, signal: AbortSignal): Promise<void> {
    const state = await this.state(signal);
    const minutes = until === null ? null : timeoutMinutes(until, now);
    if (command.mode !== 'normal' && minutes === null) throw new Error('the lease ends within a minute');
    const next = rcPlan(command, state.words, minutes ?? state.words.timeout);
    if (command.mode === 'charge' && (state.storageMode & GRID_CHARGE_BIT) === 0)
      this.log(`the storage control switch (43110 = ${state.storageMode}) does not allow grid charging: PV only`);
    await this.write(state, next, signal);
  }

  /**
   * Writes what takes the inverter from `state` to `next`, one register at a time (function 06,
   * as the RC registers are written), then reads them back.
   */
  private async write(state: RcState, next: RcWords, signal: AbortSignal): Promise<void> {
    const writes = rcWrites(state.words, next);
    for (const { address, value } of writes)
      await this.modbus.writeRegister({ unitId: this.unitId, address, value, timeoutMs: this.timeoutMs, signal });
    if (writes.length === 0) return;
    const wrong = rcMismatch((await this.state(signal)).words, next);
    if (wrong) throw new DeviceRefusedError({ answer: wrong });
  }
}

/** What {@link solisBatteryControl} takes: the unit, the battery's limits (the config's), the site. */
export type SolisBatteryControlOptions = UnitControlOptions;

/**
 * Battery control through the remote control registers: the SDK's polled control (the start's
 * reconcile, the hold at the target, the end of a force kept past its lease, the stop's Normal)
 * around the RC writes, and a force the inverter dropped early forced again (`keep`).
 */
export function solisBatteryControl(args: SolisBatteryControlOptions): PolledBatteryControl {
  const { now, log } = args;
  const io = new RcIo(args.modbus, args.unitId, args.timeoutMs, log);
  /** When the inverter's force was last read back or looked at: a look for an early drop comes a minute on. */
  let lookedAt = -Infinity;

  const program = async (command: BatteryCommand, until: number | null, signal: AbortSignal) => {
    await io.program(command, until, now(), signal);
    lookedAt = now();
  };

  return polledBatteryControl({
    ...contextOf(args),
    limits: { ...args.battery, modes: ['normal', 'hold', 'charge', 'discharge'] },
    boundedOnDevice: true,
    read: async ({ signal }) => rcMode((await io.state(signal)).words),
    program: ({ command, until, signal }) => program(command, until, signal),
    keep: async ({ command, until, signal }) => {
      if (now() - lookedAt < REFORCE_MS || timeoutMinutes(until, now()) === null) return;
      lookedAt = now();
      if ((await io.state(signal)).words.mode !== RC_OFF) return;
      log(`the inverter dropped the ${command.mode} before its lease's end: forcing it again until then`);
      await program(command, until, signal);
    },
  });
}
