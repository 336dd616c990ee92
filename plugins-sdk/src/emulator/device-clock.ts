/*
 * How an emulated inverter whose program runs by its own clock (a time-of-use table, eco
 * groups) moves its battery on: a minute of the device's clock at a time, so that a slot's
 * boundary takes effect when it passes, whatever the gap between two requests.
 */
import { DayIntegrator } from './day.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Steps an emulated device along the true clock `now` a minute of its own clock (`offsetMs()`
 * ahead of `now`) at a time: at most the last hour is caught up (a paused process does not
 * drain a battery at once), and a clock set back goes on from there. `day` keeps today's
 * energy counters at the time the steps have reached.
 *
 * @example
 * const steps = new DeviceClockSteps(now, () => device.clockOffsetMs);
 * const end = steps.run((from, hours) => steps.day.add('pv', pvWatts(from), hours));
 */
export class DeviceClockSteps {
  /** Today's energy counters, at the time the steps have reached. */
  readonly day: DayIntegrator;
  private at: Date;
  private last: number;

  constructor(
    private readonly now: () => Date,
    private readonly offsetMs: () => number,
  ) {
    this.at = now();
    this.last = this.at.getTime();
    this.day = new DayIntegrator(() => this.at);
  }

  /**
   * Runs `step` for each piece of time from the last run to now, none crossing a minute of the
   * device's clock: `from` its start, `hours` its length (`day` already at its end). Returns now.
   */
  run(step: (from: Date, hours: number) => void): Date {
    const end = this.now().getTime();
    if (end < this.last) {
      // The clock was set back: nothing to integrate, go on from there.
      this.moveTo(end);
      this.last = end;
    }
    const from = Math.max(this.last, end - HOUR);
    // Skipped time is not integrated; the day's counters still see the date it reached.
    if (from > this.last) this.moveTo(from);
    for (let t = from; t < end;) {
      const next = Math.min(end, t + MINUTE - ((((t + this.offsetMs()) % MINUTE) + MINUTE) % MINUTE));
      step(new Date(t), this.moveTo(next));
      t = next;
    }
    this.last = end;
    return new Date(end);
  }

  /** Moves the day's counters to `time`; the hours they moved. */
  private moveTo(time: number): number {
    this.at = new Date(time);
    return this.day.advance();
  }
}
