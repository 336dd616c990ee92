/**
 * Battery control for a driver that polls its device: what every such driver repeats around
 * {@link batteryControl}, so that a driver writes only how its device is programmed and read.
 *
 * - One change of the device at a time: a command, the hold at a target and the lease's end
 *   never interleave their registers.
 * - The first poll after the declaration ends a forced command found on the device (audited,
 *   through the core's write path).
 * - A device that knows no target SOC is held once a charge or discharge reached its target.
 * - A forced command the device still shows after its lease ended (its timer did not run, or
 *   someone else set it again) is ended by writing Normal through the core's write path; one it
 *   ended by itself leaves the driver's `lapsed` to clear what its program left behind.
 * - A driver's `keep` runs at each poll while a lease runs (firmware that drops a command early).
 * - The stop ends a forced command in force, before the driver closes its connection.
 *
 * Re-exported from the SDK's main entry.
 */
import {
  BATTERY_CONTROL_TOPICS,
  batteryControl,
  type BatteryCommand,
  type BatteryControl,
  type BatteryControlOptions,
  type BatteryMode,
} from './battery-control.js';
import type { SiteApi } from './site.js';

/** What {@link polledBatteryControl} takes. */
export interface PolledBatteryControlOptions extends Omit<BatteryControlOptions, 'apply' | 'read'> {
  /**
   * Programs the device for `command` (a forced one ending on the device at `until`, null for
   * normal), checks it took it, and throws when it did not (`DeviceRefusedError`...).
   */
  program(args: { command: BatteryCommand; until: number | null; signal: AbortSignal }): Promise<void>;
  /** What the device does now, from its registers: normal, a forced mode, or null when it cannot tell. */
  read(args: { signal: AbortSignal }): Promise<BatteryMode | null>;
  /**
   * Whether the device stops a charge or discharge at its target by itself: true for both, or
   * the modes it stops by itself (a device whose program carries a charge target but no
   * discharge target: `['charge']`). For a mode it does not stop (default: neither), the
   * battery is held (`hold` programmed) once a poll reads the target reached.
   */
  stopsAtTarget?: boolean | ReadonlyArray<'charge' | 'discharge'>;
  /**
   * Run at each poll while a forced command's lease runs (under the same lock as a command):
   * for a device that needs more than the planner's renewal to keep the command (a watchdog
   * to feed, firmware that drops a command early). Gets the command as programmed (a hold
   * once the target was reached).
   */
  keep?(args: { command: BatteryCommand; until: number; signal: AbortSignal }): Promise<void>;
  /**
   * Run at the first poll after a forced command's lease ended with the device showing no forced
   * mode (`found`: normal, or null when it cannot tell), under the same lock: to clear what the
   * program leaves behind on the device (a time slot that would come round again the next day
   * or week). A device still forced is set to Normal through the core's write path instead.
   * Writes the device directly: a write through `site` from here would wait for this very lock.
   */
  lapsed?(args: { found: 'normal' | null; signal: AbortSignal }): Promise<void>;
  /** The core's write path and the device the settings are on, for the start's, the lease's and the stop's Normal. */
  site: Pick<SiteApi, 'write'>;
  device: string;
  /** Where the control says what it did (the driver's `ctx.log.info`, with the device named). */
  log: (message: string) => void;
}

/** What {@link polledBatteryControl} returns: the control to declare and publish, and the poll's and stop's parts. */
export interface PolledBatteryControl {
  control: BatteryControl;
  /**
   * After each successful poll, with the SOC it read: the start's reconcile the first time,
   * then the hold at the target, `keep`, and the end of a command kept past its lease.
   */
  afterPoll(args: { soc: number | null; signal: AbortSignal }): Promise<void>;
  /** For the driver's cleanup, before the connection closes: a forced command in force is ended (audited). */
  stopClean(): Promise<void>;
}

/** What the device was last set to do: the command, its lease's end, and whether it holds at the target. */
interface Programmed {
  command: BatteryCommand;
  until: number;
  reached: boolean;
}

/** Whether `command` reached its target at `soc` (a charge at or above it, a discharge at or below). */
export function reachedTarget(command: BatteryCommand, soc: number | null): boolean {
  if (soc === null) return false;
  return (
    (command.mode === 'charge' && soc >= command.targetSoc) ||
    (command.mode === 'discharge' && soc <= command.targetSoc)
  );
}

/** Runs tasks one at a time, in the order given; a failed one does not stop the next. */
export function serialTasks(): <T>(task: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = queue.then(task);
    queue = run.catch(() => undefined);
    return run;
  };
}

/**
 * Battery control on a polled device, from how its driver programs and reads it.
 *
 * @example
 * const battery = polledBatteryControl({ limits, boundedOnDevice: true, now: () => ctx.now(), program, read, site: ctx.site, device: inverter.id, log });
 * // each poll: publish battery.control.values(), then
 * await battery.afterPoll({ soc, signal });
 * // the async cleanup, before the connection is released:
 * await battery.stopClean();
 */
export function polledBatteryControl(options: PolledBatteryControlOptions): PolledBatteryControl {
  const { site, device, now, log } = options;
  const exclusive = serialTasks();
  /** The SOC of the last poll. */
  let soc: number | null = null;
  /** The forced command the device was last set to; null after Normal or its lease's end. */
  let programmed: Programmed | null = null;
  let cleaned = false;
  /** The modes the device ends at their target by itself. */
  const stopping: readonly BatteryMode[] =
    options.stopsAtTarget === true ? ['charge', 'discharge'] : options.stopsAtTarget || [];
  /** Whether `command` is to be held at `soc`: its target reached, and the device does not stop there by itself. */
  const holdAt = (command: BatteryCommand, soc: number | null) =>
    !stopping.includes(command.mode) && reachedTarget(command, soc);
  const asProgrammed = (p: Programmed) => (p.reached ? { ...p.command, mode: 'hold' as const } : p.command);

  const control = batteryControl({
    ...options,
    read: (args) => options.read(args),
    apply: ({ command, until, signal }) =>
      exclusive(async () => {
        // A charge or discharge already at its target holds at once (and its renewal stays a hold).
        const reached = holdAt(command, soc);
        await options.program({ command: reached ? { ...command, mode: 'hold' } : command, until, signal });
        if (reached && !programmed?.reached)
          log(`battery at ${soc} %, the ${command.mode} target ${command.targetSoc} %: holding`);
        programmed = command.mode === 'normal' || until === null ? null : { command, until, reached };
      }),
  });

  /** The poll's part under the lock; resolves with a forced mode the device kept past its lease. */
  const check = async (signal: AbortSignal): Promise<{ mode: BatteryMode; end: number } | null> => {
    const p = programmed;
    if (!p) return null;
    if (now() >= p.until) {
      // The lease ended: the device should be back to normal by itself.
      programmed = null;
      const found = await options.read({ signal });
      if (found !== null && found !== 'normal') return { mode: found, end: p.until };
      await options.lapsed?.({ found, signal });
      return null;
    }
    if (!p.reached && holdAt(p.command, soc)) {
      await options.program({ command: { ...p.command, mode: 'hold' }, until: p.until, signal });
      p.reached = true;
      log(`battery at ${soc} %, the ${p.command.mode} target ${p.command.targetSoc} %: holding`);
      return null;
    }
    await options.keep?.({ command: asProgrammed(p), until: p.until, signal });
    return null;
  };

  return {
    control,
    async afterPoll({ soc: read, signal }) {
      soc = read;
      if (!cleaned) {
        const found = await control.startClean({ site, device, signal });
        if (found !== 'normal')
          log(`${found ?? 'a command it cannot tell'} in force on the device at the start: set to Normal`);
        cleaned = true;
      }
      const kept = await exclusive(() => check(signal));
      if (!kept) return;
      log(`${kept.mode} still in force after its lease ended at ${new Date(kept.end).toISOString()}: set to Normal`);
      await site.write({ topic: `${device}/${BATTERY_CONTROL_TOPICS.mode}`, value: 'normal' });
    },
    async stopClean() {
      await control.stopClean({ site, device });
    },
  };
}
