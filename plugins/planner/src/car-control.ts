/**
 * The controller's part for the car (README "The car in the plan"): reads the chargers at each
 * check, words the car's plan, writes each planned charger's `planned_power` through the
 * audited write path, and says when the home battery must be kept off the car.
 */
import { batteryModeLabel, type PluginContext } from '@heliograph/plugins-sdk';
import type { PlannerConfig, PlannerMode } from './config.js';
import { type CarRead, readCar } from './car-inputs.js';
import { clockTime, type PlanMode } from './modes.js';
import { type CarRequest, type Plan, QUARTER_MS } from './plan.js';

export class CarControl {
  /** The chargers as last read: the car planned, and why others are not. */
  private cars: CarRead = { car: null, notes: [], done: [], drawing: [], key: '' };
  /** Per charger, the quarter hour whose `planned_power` was last written, and the power. */
  private readonly written = new Map<string, { slot: number; powerW: number }>();
  /** Why the last `planned_power` write failed; null when it went through. */
  private problem: string | null = null;

  constructor(
    private readonly ctx: PluginContext,
    private readonly config: PlannerConfig,
  ) {}

  /** The car to plan, if any. */
  get request(): CarRequest | null {
    return this.cars.car;
  }

  /** Reads the chargers; whether what the plan is made for changed (a re-plan is due). */
  async read(now: number): Promise<boolean> {
    const cars = await readCar(this.ctx, this.config, now).catch((e: unknown): CarRead => ({
      car: null,
      notes: [`chargers not read: ${String(e)}`],
      done: [],
      drawing: [],
      key: 'error',
    }));
    const changed = cars.key !== this.cars.key;
    this.cars = cars;
    return changed;
  }

  /** The car's plan in words: "charger_1: 33.3 kWh by 07:00, charging 01:30-04:30" (or why none). */
  text(plan: Plan, now: number): string {
    const c = plan.car;
    const tz = this.ctx.site.timeZone;
    const notes = this.cars.notes;
    if (!c) return notes.length > 0 ? `no car planned: ${notes.join('; ')}` : 'no car planned';
    const charging = plan.actions.filter((_, t) => (c.powerW[t] ?? 0) > 0);
    const span =
      charging.length === 0
        ? 'no charging planned'
        : `charging ${clockTime(charging[0]!.start, now, tz)}-${clockTime(charging[charging.length - 1]!.end, now, tz)}`;
    const short = c.shortKwh > 0.05 ? `; cannot be met: ${c.shortKwh.toFixed(1)} kWh short by the deadline` : '';
    const others = notes.length > 0 ? `; ${notes.join('; ')}` : '';
    return `${c.device}: ${c.needKwh.toFixed(1)} kWh by ${clockTime(c.deadline, now, tz)}, ${span}${short}${others}`;
  }

  /**
   * The car's power for this quarter hour, W, as the charger is told it: the plan's, raised to
   * the charger's minimum when it is below it (below it the charger pauses), 0 when none.
   */
  powerNow(plan: Plan | null): { device: string; powerW: number } | null {
    const c = plan?.car;
    const car = this.cars.car;
    if (!c || !car || car.device !== c.device) return null;
    const w = c.powerW[0] ?? 0;
    return { device: c.device, powerW: w <= 0 ? 0 : Math.min(car.maxW, Math.max(car.minW, Math.round(w))) };
  }

  /**
   * Whether a car charges now with the home battery to be kept off it: the planned one (as
   * planned, or as its charger reports: a charge it began by itself, such as its minimum run),
   * or one on a charger in another mode (`now`, `min+pv`, `pv`) that draws.
   */
  blocksBattery(plan: Plan | null): boolean {
    return this.blockingCharger(plan) !== null;
  }

  /** The charger whose car the battery is kept off now (see {@link blocksBattery}), or null. */
  private blockingCharger(plan: Plan | null): string | null {
    const car = this.cars.car;
    const power = this.powerNow(plan);
    if (car !== null && !car.allowBattery && ((power?.powerW ?? 0) > 0 || (car.livePowerW ?? 0) > 0)) return car.device;
    return this.cars.drawing[0] ?? null;
  }

  /**
   * Hold instead of the plan's mode while the car charges and the battery may not feed it:
   * Normal would let it, and a Discharge at the forecast house load feeds it whenever the
   * house takes less. A Normal that charges the battery (PV left over by the car) stays.
   * Null when the plan's mode stands.
   */
  hold(planned: PlanMode, plan: Plan | null, modes: readonly string[]): { mode: PlanMode; refused: string } | null {
    const charging = (plan?.actions[0]?.batteryW ?? 0) < 0;
    const feeds = planned === 'discharge' || (planned === 'normal' && !charging);
    const charger = this.blockingCharger(plan);
    if (!feeds || charger === null || !modes.includes('hold')) return null;
    return {
      mode: 'hold',
      refused: ` (the plan says ${batteryModeLabel(planned)}; Hold while the car charges on ${charger}: the battery may not feed it)`,
    };
  }

  /**
   * Writes the chargers' `planned_power` through the audited write path (in active mode): when
   * it changes and once per quarter hour (its lease on the charger is 30 min, so a planner
   * that stops leaves the charger to its own default within it); a car whose target is
   * reached is told 0 W. Returns the status's words; a refusal is said there, and the charger
   * falls back by itself when its lease ends.
   */
  async write(plan: Plan | null, mode: PlannerMode, now: number): Promise<string> {
    const planned = this.powerNow(plan);
    const wants = [...(planned ? [planned] : []), ...this.cars.done.map((device) => ({ device, powerW: 0 }))];
    if (mode === 'dry-run') return wants.map((w) => `; would set ${w.device} planned_power ${w.powerW} W`).join('');
    const slot = Math.floor(now / QUARTER_MS);
    const notes: string[] = [];
    let problem: string | null = null;
    for (const want of wants) {
      const w = this.written.get(want.device);
      if (!(w && w.slot === slot && w.powerW === want.powerW && !this.problem))
        try {
          await this.ctx.site.write({ topic: `${want.device}/planned_power`, value: want.powerW });
          this.written.set(want.device, { slot, powerW: want.powerW });
        } catch (e) {
          problem = `${want.device} refused planned_power ${want.powerW} W: ${e instanceof Error ? e.message : String(e)}; it falls back to its default charging`;
          this.ctx.log.warn(problem);
          notes.push(`; ${problem}`);
          continue;
        }
      notes.push(`; car on ${want.device} ${want.powerW} W`);
    }
    this.problem = problem;
    return notes.join('');
  }
}
