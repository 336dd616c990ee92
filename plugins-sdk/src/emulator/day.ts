/**
 * A plain model of a household's day for emulators: sunlight that rises at 06:00 and sets
 * at 18:00 local time, a load with morning and evening peaks, and an integrator that turns
 * powers into today's energy counters. Good enough to make a driver's readings move the way
 * a real site's do; the simulator plugin has the accurate sun.
 */

const HOUR = 3_600_000;

/** Local hours since midnight, with fractions. */
function localHours(time: Date): number {
  return time.getHours() + time.getMinutes() / 60 + time.getSeconds() / 3600;
}

/**
 * How much of its peak a PV array gives at this local time: 0 at night, 1 at noon.
 *
 * @example
 * sunFraction(new Date(2026, 5, 21, 12)); // 1
 * sunFraction(new Date(2026, 5, 21, 3)); // 0
 */
export function sunFraction(time: Date): number {
  const h = localHours(time);
  return h <= 6 || h >= 18 ? 0 : Math.sin((Math.PI * (h - 6)) / 12);
}

/**
 * A household's consumption in W at this local time: a base load with a morning peak around
 * 07:30 and an evening peak around 19:00.
 *
 * @example
 * householdLoad(new Date(2026, 5, 21, 3)); // about 300
 */
export function householdLoad(time: Date, baseW = 300): number {
  const h = localHours(time);
  const peak = (centre: number, width: number, height: number) => height * Math.exp(-(((h - centre) / width) ** 2));
  return Math.round(baseW + peak(7.5, 1, 900) + peak(12.5, 1.5, 400) + peak(19, 1.5, 1400));
}

/**
 * Steps a model along the emulator's clock and keeps today's energy counters (kWh), reset
 * at local midnight. Call `advance()` before answering a request: it returns the hours since
 * the last call (at most one, so a paused process does not drain a battery at once).
 *
 * @example
 * const day = new DayIntegrator(() => new Date());
 * const hours = day.advance();
 * day.add('pv', pvWatts, hours);
 * day.kWh('pv'); // today's PV energy
 */
export class DayIntegrator {
  private last: number;
  private day: string;
  private readonly totals = new Map<string, number>();

  constructor(private readonly now: () => Date) {
    const start = now();
    this.last = start.getTime();
    this.day = start.toDateString();
  }

  advance(): number {
    const now = this.now();
    if (now.toDateString() !== this.day) {
      this.day = now.toDateString();
      this.totals.clear();
    }
    const hours = Math.min(Math.max(now.getTime() - this.last, 0), HOUR) / HOUR;
    this.last = now.getTime();
    return hours;
  }

  /** Adds `watts` held for `hours` to the counter `name` (negative watts are ignored). */
  add(name: string, watts: number, hours: number): void {
    if (watts > 0) this.totals.set(name, this.kWh(name) + (watts * hours) / 1000);
  }

  kWh(name: string): number {
    return this.totals.get(name) ?? 0;
  }
}

/**
 * Clamps a number into [min, max].
 *
 * @example
 * clamp(120, 0, 100); // 100
 */
export function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}
