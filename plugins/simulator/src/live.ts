/**
 * The running simulation: advances the pure model to "now" and publishes what it reads. The
 * simulated site is the device battery control commands, and like a device with a revert
 * timer it honours the lease itself: a forced command ends in the simulated bank at its
 * `until`, within the integration, whether or not anyone polls or renews.
 */
import type { BatteryCommand, BatteryMode, Device, PluginContext } from '@heliograph/plugins-sdk';
import { batteryValues, type InverterInfo, inverterInfo, inverterValues } from './declarations.js';
import { type InverterSettings, type SiteModel, type SiteReadings, type SiteState, step } from './site.js';

/** Finer steps than this would not change the result; coarser ones would blur the load spikes. */
export const STEP_MS = 10_000;
/**
 * After a long pause (a suspended machine, a restart after days) only this much is
 * integrated; the rest is skipped, as if the site had idled.
 */
export const MAX_CATCH_UP_MS = 3_600_000;

export class LiveSimulation {
  /** What each inverter says it is, in device order. */
  readonly info: InverterInfo[];
  /** The battery-control command in force for the whole bank; `normal` leaves each inverter to its priority. */
  control: BatteryCommand = { mode: 'normal', powerW: 0, targetSoc: 100 };
  /** When the forced command in force ends by itself (ms since the epoch); null in `normal`. */
  controlUntil: number | null = null;
  /** The capability's values (info, mode, power, target), published with the first inverter's. */
  controlValues: () => Record<string, number | string> = () => ({});

  constructor(
    private readonly ctx: PluginContext,
    private readonly model: SiteModel,
    private readonly inverters: readonly Device[],
    private readonly batteries: readonly Device[],
    public state: SiteState,
    public readonly settings: InverterSettings[],
  ) {
    this.info = model.inverters.map((inverter, i) => inverterInfo(model.seed, i, inverter.peakW));
  }

  /** Integrates from the last state to `now` and returns the readings at `now`. */
  advanceTo(now: number): SiteReadings {
    if (now - this.state.time > MAX_CATCH_UP_MS) {
      this.ctx.log.debug('skipping a long pause in the simulation', {
        skippedMs: now - this.state.time - MAX_CATCH_UP_MS,
      });
      this.state = { ...this.state, time: now - MAX_CATCH_UP_MS };
    }
    this.endLeaseAt(this.state.time);
    // A clock that went backwards gets readings for the current state, without integrating.
    let result = step(
      this.model,
      { ...this.state, time: Math.min(this.state.time, now) },
      0,
      this.settings,
      this.control,
    );
    while (result.state.time < now) {
      const t = result.state.time;
      // A step never runs past the lease's end: the bank is normal from there on.
      const dt = Math.min(STEP_MS, now - t, this.controlUntil === null ? Infinity : this.controlUntil - t);
      result = step(this.model, result.state, dt, this.settings, this.control);
      this.endLeaseAt(result.state.time);
    }
    this.state = result.state;
    return result.readings;
  }

  /** What the bank is doing at `now`: the command's mode, `normal` once its lease ran out. */
  modeAt(now: number): BatteryMode {
    return this.controlUntil !== null && now >= this.controlUntil ? 'normal' : this.control.mode;
  }

  /** The forced command ends by itself once the simulated time reaches its lease's end. */
  private endLeaseAt(time: number): void {
    if (this.controlUntil === null || time < this.controlUntil) return;
    this.control = { ...this.control, mode: 'normal' };
    this.controlUntil = null;
  }

  /**
   * One publish call per device, so each device's values reach clients as one update; the
   * first inverter's carries battery control's values unless `withControl` is false (a
   * command being applied, which shows once it is confirmed).
   */
  publish(readings: SiteReadings, withControl = true): void {
    this.inverters.forEach((device, i) => {
      this.ctx.topics.publish({
        device: device.id,
        values: {
          ...inverterValues(readings.inverters[i]!, this.settings[i]!, this.info[i]!),
          ...(i === 0 && withControl ? this.controlValues() : {}),
        },
      });
    });
    this.batteries.forEach((device, b) => {
      this.ctx.topics.publish({ device: device.id, values: batteryValues(readings.batteries[b]!) });
    });
  }

  /**
   * Changes an inverter's settings. The time up to now is integrated under the old
   * settings, then everything is published again so the effect shows at once.
   */
  applySetting(index: number, change: Partial<InverterSettings>): void {
    this.advanceTo(this.ctx.now());
    Object.assign(this.settings[index]!, change);
    this.publish(this.advanceTo(this.ctx.now()));
  }

  /**
   * Sets the battery-control command, integrating up to now under the old one first. A
   * forced command lasts until `until`; a later one moves the end (a renewal).
   */
  applyControl(command: BatteryCommand, until: number | null): void {
    this.advanceTo(this.ctx.now());
    this.control = { ...command };
    this.controlUntil = command.mode === 'normal' ? null : until;
    this.publish(this.advanceTo(this.ctx.now()), false);
  }
}
