import { DateTime } from 'luxon';
import type { Clock } from '../clock.js';
import type { Db, Migration } from '../db.js';
import { roundTo } from '../numbers.js';
import { totalMeta } from '../topics/power-totals.js';
import type { PendingTick, TopicRegistry, TopicState } from '../topics/registry.js';
import { createLogger, errorMessage } from '../log.js';
import { DbWriter } from '../db-writer.js';

const log = createLogger('energy');

export type ResetPeriod = 'daily' | 'weekly' | 'monthly';

export const energyMigrations: Migration[] = [
  {
    id: 'energy:1',
    sql: 'CREATE TABLE energy_totals (name TEXT PRIMARY KEY, kwh REAL NOT NULL, period_start INTEGER NOT NULL, updated_at INTEGER NOT NULL)',
  },
];

/** Each kWh total and the power it integrates: the positive or the negative part of it. */
export const ENERGY_TOTALS = [
  { name: 'pv_energy', displayName: 'PV energy', power: 'pv_power', sign: 1 },
  { name: 'load_energy', displayName: 'Load energy', power: 'load_power', sign: 1 },
  { name: 'battery_energy_in', displayName: 'Battery energy in', power: 'battery_power', sign: 1 },
  { name: 'battery_energy_out', displayName: 'Battery energy out', power: 'battery_power', sign: -1 },
  { name: 'grid_energy_in', displayName: 'Grid energy in', power: 'grid_power', sign: 1 },
  { name: 'grid_energy_out', displayName: 'Grid energy out', power: 'grid_power', sign: -1 },
] as const;

/** Beyond this gap between readings, power is not assumed to have held: nothing is integrated. */
export const MAX_GAP_MS = 5 * 60_000;
export const MS_PER_HOUR = 3_600_000;

interface Accumulator {
  state: TopicState;
  power: TopicState;
  sign: 1 | -1;
  kwh: number;
}

/** Start (inclusive) and end (exclusive) of the period containing `time`, at local midnights in `timeZone`. */
export function periodBounds(time: number, period: ResetPeriod, timeZone: string): { start: number; end: number } {
  const unit = period === 'daily' ? 'day' : period === 'weekly' ? 'week' : 'month';
  // luxon's week starts on Monday (ISO), as the API's weekly period does.
  const start = DateTime.fromMillis(time, { zone: timeZone }).startOf(unit);
  return { start: start.toMillis(), end: start.plus({ [unit]: 1 }).toMillis() };
}

/** Start of the period containing `time`, at local midnight in `timeZone`. */
export function periodStart(time: number, period: ResetPeriod, timeZone: string): number {
  return periodBounds(time, period, timeZone).start;
}

/** Energy series of past readings by total name (`load_energy`): period-to-date kWh points, as PastEnergy counts them. */
export type PastEnergySeries = ReadonlyArray<readonly [name: string, points: ReadonlyArray<readonly [number, number]>]>;

/**
 * Integrates the total/* power topics into period-to-date kWh totals. Power is taken to
 * hold from one reading to the next (within 5 minutes); an interval that crosses the start
 * of a new period counts only its part after the start. Totals are saved at the rate they
 * are published: every tick that moves them queues one save (saves do not stack: ticks
 * while a save waits share it), through the server's one write path, so a killed
 * process restarts from what clients last saw, not from a minute before, and a client's
 * total never steps back across a restart (Home Assistant's total_increasing and
 * Prometheus would read a drop as a meter reset). A save that meets a busy database waits
 * its turn and is retried; one that fails otherwise is logged and retried at the next tick
 * or interval.
 */
export class EnergyTotals {
  private readonly accumulators: Accumulator[] = [];
  private periodStartMs = 0;
  /** End of the current period: ticks compare against it rather than work out their period. */
  private periodEndMs = 0;
  private lastTime = 0;
  private lastPower = new Map<TopicState, number | null>();
  /** Whether this period's count began in this process with nothing saved for it (past energy may be added). */
  private freshPeriod = false;
  /** The first tick with a power to count: past energy (a backfill's) is taken up to it, never after. */
  private countingFrom = Infinity;
  /** Each total's last past point (time, period-to-date kWh): the next one's rise is counted from it. */
  private readonly lastPast = new Map<string, [number, number]>();

  constructor(
    private readonly registry: TopicRegistry,
    private readonly db: Db,
    private readonly clock: Clock,
    private period: ResetPeriod,
    private timeZone: string,
    /** How often totals are saved: history's flush interval, so both lose the same at a crash. */
    private readonly saveIntervalMs = 60_000,
    private readonly writer: DbWriter = new DbWriter(() => clock.now()),
  ) {}

  /** A save waits in the write path and has not begun: it takes the totals as they are when it does. */
  private saveWaiting = false;
  private failure: string | null = null;

  /** Why the totals could not be saved lately, or null. */
  get trouble(): string | null {
    return this.failure;
  }

  /**
   * The site's reset period or time zone changed (site settings, applied without a
   * restart): the current period is bounded anew at once, so the next reset comes at the
   * new local midnight. The kWh counted so far are kept rather than zeroed: they are the
   * best figure there is for the new period until it next resets.
   */
  reconfigure(settings: { period: ResetPeriod; timeZone: string }): void {
    this.period = settings.period;
    this.timeZone = settings.timeZone;
    ({ start: this.periodStartMs, end: this.periodEndMs } = periodBounds(this.clock.now(), this.period, this.timeZone));
  }

  /** The reset period and time zone the totals count by (past readings' energy counts by them too). */
  get reset(): { period: ResetPeriod; timeZone: string } {
    return { period: this.period, timeZone: this.timeZone };
  }

  /** The current period's bounds (tests). */
  get currentPeriod(): { start: number; end: number } {
    return { start: this.periodStartMs, end: this.periodEndMs };
  }

  async start(): Promise<() => Promise<void>> {
    const undo: Array<() => void> = [];
    const now = this.clock.now();
    ({ start: this.periodStartMs, end: this.periodEndMs } = periodBounds(now, this.period, this.timeZone));
    const saved = new Map(
      (
        await this.db.all<Array<{ name: string; kwh: number; period_start: number }>>(
          'SELECT name, kwh, period_start FROM energy_totals',
        )
      ).map((r) => [r.name, r]),
    );
    this.freshPeriod = ![...saved.values()].some((row) => row.period_start === this.periodStartMs);
    for (const def of ENERGY_TOTALS) {
      const power = this.registry.get(`total/${def.power}`);
      if (!power) throw new Error(`total/${def.power} must be defined before energy totals start`);
      const row = saved.get(def.name);
      const kwh = row && row.period_start === this.periodStartMs ? row.kwh : 0;
      undo.push(this.registry.define(totalMeta(def.name, def.displayName, 'kWh'), roundTo(kwh, 3)));
      this.accumulators.push({ state: this.registry.get(`total/${def.name}`)!, power, sign: def.sign, kwh });
    }
    this.lastTime = now;
    undo.push(this.registry.addDeriver((tick) => this.integrate(tick)));
    // Besides the save after each tick: one at the interval, for totals that held still
    // while a failed save waits to be retried.
    const timer = setInterval(() => this.saveSoon(), this.saveIntervalMs);
    timer.unref();
    return async () => {
      clearInterval(timer);
      undo.reverse().forEach((u) => u());
      // After any save queued before it: the write path runs them in order.
      await this.save();
    };
  }

  /**
   * Queues a save, unless one waits that has not begun (it will take these totals too). So a
   * total is in a save queued before any write that comes after it is published (an audit
   * entry): a write answered once it is on disk never outlives the totals a client saw. One
   * save at most waits behind the one running, however fast the ticks come.
   */
  private saveSoon(): void {
    if (this.saveWaiting) return;
    this.saveWaiting = true;
    void this.save()
      .then(() => {
        this.failure = null;
      })
      .catch((err: unknown) => {
        // Unhandled, it would end the process; the next tick or interval tries again.
        if (this.failure === null) log.error('saving energy totals failed; retrying', { err: errorMessage(err) });
        this.failure = `energy totals could not be saved: ${errorMessage(err)}`;
      });
  }

  /**
   * The energy series of past readings (a first start's backfill: period-to-date kWh by total
   * name, `load_energy`, as PastEnergy counts them): their rises within the current period,
   * before the live count began, are added to the live totals, so the period's figures
   * include what was recorded of it. Read as history reads them: a drop, or a point earlier
   * than the last, starts a new count. Ignored when the period's totals were saved before
   * this start (they already hold what the first start added; a backfill resumed after a
   * restart shows in history, not in the live totals).
   */
  addPast(series: PastEnergySeries): void {
    if (!this.freshPeriod) return;
    for (const [name, points] of series) {
      const acc = this.accumulators.find((a) => a.state.meta.topic === `total/${name}`);
      if (!acc) continue;
      const before = acc.kwh;
      for (const [time, kwh] of points) {
        const last = this.lastPast.get(name);
        const rise = last && time > last[0] && kwh >= last[1] ? kwh - last[1] : kwh;
        this.lastPast.set(name, [time, kwh]);
        if (time >= this.periodStartMs && time < this.periodEndMs && time <= this.countingFrom) acc.kwh += rise;
      }
      // Shown (and saved) at once, not at the next reading's tick, which may be a poll interval away.
      if (acc.kwh !== before) this.registry.publish(acc.state, roundTo(acc.kwh, 3));
    }
  }

  /** Current kWh of a total (tests). */
  kwh(name: string): number | undefined {
    return this.accumulators.find((a) => a.state.meta.topic === `total/${name}`)?.kwh;
  }

  /**
   * Saves every total in one statement: atomic without BEGIN/COMMIT, which on the shared
   * connection would take in other writes (audit, tokens) made meanwhile.
   */
  async save(): Promise<void> {
    // The totals are read when the write path gets to this save, not when it was asked for.
    await this.writer.run('energy totals', () => {
      this.saveWaiting = false;
      const now = this.clock.now();
      const rows = this.accumulators.map((acc) => [
        acc.state.meta.topic.slice('total/'.length),
        acc.kwh,
        this.periodStartMs,
        now,
      ]);
      return this.db.run(
        `INSERT INTO energy_totals (name, kwh, period_start, updated_at) VALUES ${rows.map(() => '(?, ?, ?, ?)').join(', ')}
       ON CONFLICT (name) DO UPDATE SET kwh = excluded.kwh, period_start = excluded.period_start, updated_at = excluded.updated_at`,
        ...rows.flat(),
      );
    });
  }

  private integrate(tick: PendingTick): void {
    const now = tick.time;
    const newPeriod = now < this.periodStartMs || now >= this.periodEndMs;
    if (!newPeriod && !this.accumulators.some((acc) => tick.readings.includes(acc.power))) return;

    let from = this.lastTime;
    if (newPeriod) {
      ({ start: this.periodStartMs, end: this.periodEndMs } = periodBounds(now, this.period, this.timeZone));
      for (const acc of this.accumulators) acc.kwh = 0;
      from = Math.max(from, this.periodStartMs);
      this.freshPeriod = false;
    }
    const dt = now - from;
    if (dt > 0 && now - this.lastTime <= MAX_GAP_MS) {
      for (const acc of this.accumulators) {
        const watts = this.lastPower.get(acc.power);
        if (typeof watts === 'number' && watts * acc.sign > 0) acc.kwh += (watts * acc.sign * dt) / MS_PER_HOUR / 1000;
      }
    }
    this.lastTime = now;
    for (const acc of this.accumulators) {
      const value = this.registry.visibleValue(acc.power);
      this.lastPower.set(acc.power, typeof value === 'number' ? value : null);
      if (typeof value === 'number' && this.countingFrom === Infinity) this.countingFrom = now;
    }
    for (const acc of this.accumulators) this.registry.setDerived(acc.state, roundTo(acc.kwh, 3), tick);
    this.saveSoon();
  }
}
