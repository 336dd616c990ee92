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
  BATTERY_CONTROL_TOPICS,
  batteryControl,
  DeviceRefusedError,
  type batteryConfigSchema,
  type BatteryCommand,
  type BatteryControl,
  type BatteryMode,
  type PluginStore,
  type SiteApi,
  type z,
} from '@heliograph/plugins-sdk';
import type { ModbusClient } from '@heliograph/plugins-sdk/connections';
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

/** Whether `command` reached its target at `soc` (a charge at or above it, a discharge at or below). */
function reachedTarget(command: BatteryCommand, soc: number | null): boolean {
  if (soc === null) return false;
  return (
    (command.mode === 'charge' && soc >= command.targetSoc) ||
    (command.mode === 'discharge' && soc <= command.targetSoc)
  );
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

export interface SolisBatteryControl {
  control: BatteryControl;
  /**
   * After each poll, with its SOC: the first one ends a forced command found on the inverter
   * (audited); each holds the battery once a charge or discharge reached its target, forces
   * again what the inverter dropped before the lease's end, and ends a force the inverter kept
   * past it.
   */
  afterPoll(args: { soc: number | null; signal: AbortSignal }): Promise<void>;
  /** For the cleanup, before the connection closes: a forced command in force is ended (audited). */
  stopClean(): Promise<void>;
}

/** What the inverter was last set to do: the command, its lease's end, whether it holds at the target. */
interface Programmed {
  command: BatteryCommand;
  until: number;
  reached: boolean;
}

/** What {@link solisBatteryControl} takes: the unit, the battery's limits (the config's), the site. */
export interface SolisBatteryControlOptions {
  modbus: ModbusClient;
  unitId: number;
  timeoutMs: number;
  battery: z.output<typeof batteryConfigSchema>;
  /** The core's write path and the device the settings are on, for the start's and the stop's Normal. */
  site: Pick<SiteApi, 'write'>;
  device: string;
  /** Keeps the power and target (never the mode) across restarts. */
  store: PluginStore;
  initial: BatteryCommand | undefined;
  now: () => number;
  log: (message: string) => void;
}

export function solisBatteryControl(args: SolisBatteryControlOptions): SolisBatteryControl {
  const { site, device, now, log } = args;
  const io = new RcIo(args.modbus, args.unitId, args.timeoutMs, log);
  const exclusive = serial();
  let soc: number | null = null;
  let programmed: Programmed | null = null;
  let cleaned = false;
  /** When the poll last looked for a force the inverter dropped early. */
  let lookedAt = -Infinity;

  const program = (command: BatteryCommand, until: number | null, signal: AbortSignal) =>
    io.program(command, until, now(), signal);

  const control = batteryControl({
    limits: { ...args.battery, modes: ['normal', 'hold', 'charge', 'discharge'] },
    boundedOnDevice: true,
    now,
    store: args.store,
    initial: args.initial,
    read: async ({ signal }) => rcMode((await io.state(signal)).words),
    apply: ({ command, until, signal }) =>
      exclusive(async () => {
        // A charge or discharge already at its target holds at once (and its renewal stays a hold).
        const reached = reachedTarget(command, soc);
        await program(reached ? { ...command, mode: 'hold' } : command, until, signal);
        if (reached && !programmed?.reached)
          log(`battery at ${soc} %, the ${command.mode} target ${command.targetSoc} %: holding`);
        programmed = command.mode === 'normal' || until === null ? null : { command, until, reached };
        lookedAt = now(); // the force was just read back: the next look a minute on
      }),
  });

  const writeNormal = () => site.write({ topic: `${device}/${BATTERY_CONTROL_TOPICS.mode}`, value: 'Normal' });

  /** The poll's part under the lock: what the lease's end, the target or an early drop need. */
  const check = async (
    read: number | null,
    signal: AbortSignal,
  ): Promise<{ mode: BatteryMode; end: number } | null> => {
    const p = programmed;
    if (!p) return null;
    if (now() >= p.until) {
      // The lease ended: the inverter should have dropped the force by itself.
      programmed = null;
      const found = rcMode((await io.state(signal)).words);
      return found === null || found === 'normal' ? null : { mode: found, end: p.until };
    }
    if (!p.reached && reachedTarget(p.command, read)) {
      await program({ ...p.command, mode: 'hold' }, p.until, signal);
      p.reached = true;
      log(`battery at ${read} %, the ${p.command.mode} target ${p.command.targetSoc} %: holding`);
      return null;
    }
    if (now() - lookedAt < REFORCE_MS || timeoutMinutes(p.until, now()) === null) return null;
    lookedAt = now();
    if ((await io.state(signal)).words.mode !== RC_OFF) return null;
    log(`the inverter dropped the ${p.command.mode} before its lease's end: forcing it again until then`);
    await program(p.reached ? { ...p.command, mode: 'hold' } : p.command, p.until, signal);
    return null;
  };

  return {
    control,
    async afterPoll({ soc: read, signal }) {
      soc = read;
      if (!cleaned) {
        const found = await control.startClean({ site, device, signal });
        if (found !== 'normal')
          log(`${found ?? 'a remote control it cannot tell'} in force on the inverter at the start: set to Normal`);
        cleaned = true;
      }
      const kept = await exclusive(() => check(read, signal));
      if (!kept) return;
      log(`${kept.mode} still in force after its lease ended at ${new Date(kept.end).toISOString()}: set to Normal`);
      await writeNormal();
    },
    async stopClean() {
      await control.stopClean({ site, device });
    },
  };
}
