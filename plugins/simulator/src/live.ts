/** The running simulation: advances the pure model to "now" and publishes what it reads. */
import type { BatteryCommand, Device, PluginContext } from '@heliograph/plugins-sdk';
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
  /** The capability's info values, published with the first inverter's. */
  controlInfo: Record<string, number> = {};

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
    // A clock that went backwards gets readings for the current state, without integrating.
    let result = step(
      this.model,
      { ...this.state, time: Math.min(this.state.time, now) },
      0,
      this.settings,
      this.control,
    );
    while (result.state.time < now) {
      result = step(this.model, result.state, Math.min(STEP_MS, now - result.state.time), this.settings, this.control);
    }
    this.state = result.state;
    return result.readings;
  }

  /** One publish call per device, so each device's values reach clients as one update. */
  publish(readings: SiteReadings): void {
    this.inverters.forEach((device, i) => {
      this.ctx.topics.publish({
        device: device.id,
        values: {
          ...inverterValues(readings.inverters[i]!, this.settings[i]!, this.info[i]!),
          ...(i === 0 ? this.controlInfo : {}),
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

  /** Sets the battery-control command, integrating up to now under the old one first. */
  applyControl(command: BatteryCommand): void {
    this.advanceTo(this.ctx.now());
    this.control = { ...command };
    this.publish(this.advanceTo(this.ctx.now()));
  }
}
