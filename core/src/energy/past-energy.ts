import { roundTo } from '../numbers.js';
import type { TopicMeta, TopicRegistry } from '../topics/registry.js';
import { forEachPast, type PastReadings } from '../topics/sinks.js';
import { ENERGY_TOTALS, MAX_GAP_MS, MS_PER_HOUR, periodBounds, type ResetPeriod } from './kwh-totals.js';

type Series = Array<[TopicMeta, Array<[number, number]>]>;

/** One period-to-date point a minute is enough for per-hour and per-day energy; a backfill is days long. */
const POINT_EVERY_MS = 60_000;

const POWERS = new Set(ENERGY_TOTALS.map((def) => `total/${def.power}`));

/**
 * The kWh totals of past readings (a backfill's): the past `total/*` power series that
 * `PastTotals` completes, integrated by the live totals' rule (the power of one reading holds
 * until the next, within 5 minutes; an interval across a period's start counts from the
 * start) into period-to-date `total/*_energy` series, one point a minute, the last of each
 * period and the last of each batch. The count starts at 0 at the first past reading, at each period's start, and again
 * when readings come out of order: history's counters are read as rises within a period, so
 * a new start inside a period adds to what was counted before it rather than counting twice.
 * The live totals are left alone: what a client has seen never moves.
 */
export class PastEnergy {
  /** The last reading's time, and each power total as it stands (a missing one holds, as a live topic). */
  private lastTime: number | undefined;
  private readonly power = new Map<string, number>();
  private readonly kwh = new Map<string, number>();
  private periodEnd = -Infinity;
  private periodStart = Infinity;
  private lastPoint = -Infinity;
  /** Where counting reached past the last reading: a period's end, counted before its reset. */
  private countedTo = -Infinity;
  /** The reset period and zone the period being counted was bounded by. */
  private rules = '';

  constructor(
    private readonly registry: TopicRegistry,
    /** The rules in force at a reading's time (the settings log's), so a re-recorded range counts as it did. */
    private readonly settings: (time: number) => { period: ResetPeriod; timeZone: string },
  ) {}

  /** The energy series the given past power totals imply (none before the energy totals exist). */
  add(powerTotals: ReadonlyArray<readonly [TopicMeta, PastReadings]>): Series {
    const byTime = new Map<number, Map<string, number>>();
    for (const [meta, points] of powerTotals) {
      // Only the powers the totals integrate: a battery's state of charge comes in batches of its own.
      if (!POWERS.has(meta.topic)) continue;
      const name = meta.topic.slice('total/'.length);
      forEachPast(points, (time, watts) => {
        let at = byTime.get(time);
        if (!at) byTime.set(time, (at = new Map<string, number>()));
        at.set(name, watts);
      });
    }
    const totals = ENERGY_TOTALS.flatMap((def) => {
      const state = this.registry.get(`total/${def.name}`);
      return state ? [{ def, meta: state.meta, points: [] as Array<[number, number]> }] : [];
    });
    if (totals.length === 0 || byTime.size === 0) return [];
    const times = [...byTime.keys()].sort((a, b) => a - b);
    const point = (time: number) => {
      this.lastPoint = time;
      for (const t of totals) t.points.push([time, roundTo(this.kwh.get(t.def.name) ?? 0, 3)]);
    };
    for (const time of times) {
      const newPeriod = this.outsidePeriod(time);
      const { lastTime } = this;
      if (newPeriod && lastTime !== undefined && time > lastTime) {
        if (time >= this.periodEnd && time - lastTime <= MAX_GAP_MS) {
          // The part of the interval before the new period's start is the old period's: counted
          // to its end and kept in a point just before it, so no energy is lost at a reset.
          this.countTo(this.periodEnd);
          point(this.periodEnd - 1);
        } else if (lastTime > this.lastPoint) point(lastTime); // the period's last reading, so its last minute is not lost
      }
      this.step(time, byTime.get(time)!);
      const lastOfBatch = time === times[times.length - 1];
      if (time - this.lastPoint >= POINT_EVERY_MS || lastOfBatch) point(time);
    }
    return totals.map((t) => [t.meta, t.points]);
  }

  /** Adds the power in force from the last reading (or where counting reached) to `end` to the period's kWh. */
  private countTo(end: number): void {
    const from = Math.max(this.lastTime!, this.countedTo);
    this.accumulate(end - from);
    this.countedTo = end;
  }

  private accumulate(dt: number): void {
    if (dt <= 0) return;
    for (const def of ENERGY_TOTALS) {
      const watts = this.power.get(def.power);
      if (watts !== undefined && watts * def.sign > 0)
        this.kwh.set(def.name, (this.kwh.get(def.name) ?? 0) + (watts * def.sign * dt) / MS_PER_HOUR / 1000);
    }
  }

  /**
   * Whether `time` is outside the period being counted: past its bounds, or in another period
   * by the rules in force at `time` (the owner changed the zone or the reset since).
   */
  private outsidePeriod(time: number): boolean {
    if (time < this.periodStart || time >= this.periodEnd) return true;
    const { period, timeZone } = this.settings(time);
    const rules = `${period} ${timeZone}`;
    if (rules === this.rules) return false;
    const bounds = periodBounds(time, period, timeZone);
    if (bounds.start !== this.periodStart) return true;
    // The same period by the new rules (a longer one, or a zone with the same midnight): go on counting it.
    this.rules = rules;
    this.periodEnd = bounds.end;
    return false;
  }

  private step(time: number, power: Map<string, number>): void {
    if (this.lastTime !== undefined && time <= this.lastTime) this.restart();
    const { lastTime } = this;
    let from = Math.max(lastTime ?? time, this.countedTo);
    if (this.outsidePeriod(time)) {
      const { period, timeZone } = this.settings(time);
      this.rules = `${period} ${timeZone}`;
      ({ start: this.periodStart, end: this.periodEnd } = periodBounds(time, period, timeZone));
      this.kwh.clear();
      from = Math.max(from, this.periodStart);
    }
    if (lastTime !== undefined && time - lastTime <= MAX_GAP_MS) this.accumulate(time - from);
    for (const [name, watts] of power) this.power.set(name, watts);
    this.lastTime = time;
  }

  private restart(): void {
    this.lastTime = undefined;
    this.countedTo = -Infinity;
    this.rules = '';
    this.power.clear();
    this.kwh.clear();
    this.periodStart = Infinity;
    this.periodEnd = -Infinity;
    this.lastPoint = -Infinity;
  }
}
