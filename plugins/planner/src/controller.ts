/**
 * The planner at work: reads the site, re-plans at every quarter hour and whenever prices,
 * the forecast or the state of charge move off plan (receding horizon), publishes the plan,
 * and in active mode commands the battery. Anything missing, stale or refused sends the
 * battery back to Normal and says why.
 */
import type { PluginContext, SiteWrite } from '@heliograph/plugins-sdk';
import type { PlannerConfig, PlannerMode } from './config.js';
import { type Inputs, readInputs } from './inputs.js';
import { forecastLoad, LocalCalendar } from './load-forecast.js';
import type { PlanParams } from './lp.js';
import { clockTime, type SlotAction } from './modes.js';
import { type Plan, QUARTER_MS, savingOver } from './plan.js';
import { PlanSolver } from './solver.js';

const HOUR = 3_600_000;
const LABEL = { normal: 'Normal', hold: 'Hold', charge: 'Charge', discharge: 'Discharge' } as const;

export interface Outputs {
  /** Publishes the planner's own topics (by name under its device). */
  publish(values: Record<string, string | number | null>): void;
}

interface Pause {
  until: number;
  text: string;
}

export class Controller {
  mode: PlannerMode;
  plan: Plan | null = null;
  private inputsKey = '';
  private device: string | null = null;
  private pause: Pause | null = null;
  private loadCache: { at: number; values: Map<number, number>; maeW: number | null } | null = null;
  private savedToday = { day: -1, amount: 0, lastSlot: -1 };
  private readonly calendar: LocalCalendar;
  private running: Promise<void> = Promise.resolve();
  /** HiGHS in a process of its own, released when idle (see solver.ts). */
  private readonly solver = new PlanSolver();

  constructor(
    private readonly ctx: PluginContext,
    private readonly config: PlannerConfig,
    private readonly out: Outputs,
    mode: PlannerMode,
  ) {
    this.mode = mode;
    this.calendar = new LocalCalendar(ctx.site.timeZone);
  }

  /** One check, never two at once: re-plans if due and acts on the plan. */
  check(reason = 'scheduled'): Promise<void> {
    this.running = this.running.then(() => this.checkNow(reason)).catch((e: unknown) => this.ctx.log.error(String(e)));
    return this.running;
  }

  /** A write by someone else to a controlled setting pauses the planner for the slot. */
  onWrite(write: SiteWrite, ownVia: string): void {
    if (write.via === ownVia || write.result !== 'ok') return;
    const now = this.ctx.now();
    const until = Math.floor(now / QUARTER_MS) * QUARTER_MS + QUARTER_MS;
    this.pause = {
      until,
      text: `paused: ${write.who} set ${write.topic} to ${write.value} (via ${write.via}); resuming at ${clockTime(until, now, this.ctx.site.timeZone)}`,
    };
    this.ctx.log.info(this.pause.text);
    this.out.publish({ status: this.pause.text });
  }

  /** The planner stops: in active mode the battery goes back to Normal. */
  async stop(): Promise<void> {
    await this.running;
    await this.solver.close();
    if (this.mode === 'active' && this.device) await this.writeNormal(this.device, 'the planner stopped');
  }

  async setMode(mode: PlannerMode): Promise<void> {
    const was = this.mode;
    this.mode = mode;
    if (was === 'active' && mode === 'dry-run' && this.device)
      await this.writeNormal(this.device, 'switched to dry-run');
    await this.check('mode changed');
  }

  private async checkNow(reason: string): Promise<void> {
    const now = this.ctx.now();
    const read = await readInputs(this.ctx, this.config, now).catch((e: unknown) => ({
      ok: false as const,
      device: this.device,
      why: e instanceof Error ? e.message : String(e),
    }));
    if (!read.ok) {
      this.plan = null;
      this.device = read.device ?? this.device;
      await this.fallback(read.why);
      return;
    }
    const inputs = read.inputs;
    this.device = inputs.device;
    const due = this.replanReason(inputs, now) ?? (reason === 'mode changed' ? reason : null);
    if (due) await this.replan(inputs, now, due);
    if (!this.plan) return;
    await this.act(inputs, now);
  }

  /** Why the plan must be made again now, or null while it holds. */
  private replanReason(inputs: Inputs, now: number): string | null {
    const plan = this.plan;
    if (!plan) return 'no plan yet';
    if (Math.floor(now / QUARTER_MS) !== Math.floor(plan.createdAt / QUARTER_MS)) return 'a new quarter hour';
    if (inputs.key !== this.inputsKey) return 'new prices or forecast';
    const expected = this.expectedSoc(now);
    if (expected !== null && Math.abs(expected - inputs.socPercent) > this.config.replanSocDeviation)
      return `state of charge ${inputs.socPercent.toFixed(0)} % is off the plan's ${expected.toFixed(0)} %`;
    return null;
  }

  private expectedSoc(now: number): number | null {
    const a = this.plan?.actions[0];
    if (!a || !this.plan) return null;
    const share = Math.min(1, (now - a.start) / Math.max(1, a.end - a.start));
    return this.plan.socAtStart + (a.socPercent - this.plan.socAtStart) * share;
  }

  private async replan(inputs: Inputs, now: number, why: string): Promise<void> {
    const load = await this.loadForecast(now);
    const c = this.config;
    // Without a Discharge mode (an off-grid inverter) the battery still feeds the load in
    // Normal, but nothing is exported: with export off it covers the load and no more.
    const offGrid = !inputs.limits.modes.includes('discharge');
    const params: PlanParams = {
      capacityKwh: inputs.limits.capacityKwh,
      maxChargeKw: inputs.limits.maxChargeW / 1000,
      maxDischargeKw: inputs.limits.maxDischargeW / 1000,
      reserveSoc: Math.max(c.reserveSoc, inputs.limits.minSoc),
      maxSoc: c.maxSoc,
      roundTripEfficiency: c.roundTripEfficiency,
      cycleCost: c.cycleCost,
      gridImportMaxKw: c.gridImportLimitW / 1000,
      gridExportMaxKw: c.gridExportLimitW / 1000,
      exportAllowed: c.exportAllowed && !offGrid,
    };
    try {
      this.plan = await this.solver.plan({
        now,
        params,
        prices: inputs.prices,
        pvW: inputs.pvW,
        loadW: load.values,
        defaultLoadW: 500,
        socPercent: inputs.socPercent,
        exportPrice: c.exportPaid ? c.exportPrice : 0,
        describe: { currency: inputs.currency, timeZone: this.ctx.site.timeZone },
        horizonMs: c.horizonHours * HOUR,
      });
    } catch (e) {
      this.plan = null;
      await this.fallback(`no plan: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    this.inputsKey = inputs.key;
    this.ctx.log.debug(`planned (${why}) in ${this.plan.solveMs.toFixed(1)} ms`);
    this.publishPlan(this.plan, load.maeW, now);
  }

  /** The load forecast from history, made again at most hourly. */
  private async loadForecast(now: number): Promise<{ values: Map<number, number>; maeW: number | null }> {
    // Hourly, or at every plan while there is no history to learn from yet (a fresh install).
    const cache = this.loadCache;
    if (cache && cache.maeW !== null && now - cache.at < HOUR && now >= cache.at) return cache;
    const c = this.config;
    const history = await this.ctx.site
      .history({
        topic: c.loadTopic,
        fromMs: now - c.historyWeeks * 7 * 24 * HOUR,
        toMs: now,
        groupBy: '15m',
        agg: 'mean',
      })
      .catch(() => []);
    const start = Math.floor(now / QUARTER_MS) * QUARTER_MS;
    const targets = Array.from({ length: (c.horizonHours * HOUR) / QUARTER_MS + 1 }, (_, i) => start + i * QUARTER_MS);
    const f = forecastLoad({ history, targets, timeZone: this.ctx.site.timeZone, weeks: c.historyWeeks });
    const values = new Map<number, number>();
    targets.forEach((t, i) => {
      const v = f.values[i];
      if (v !== null && v !== undefined) values.set(t, v);
    });
    this.loadCache = { at: now, values, maeW: f.maeW };
    return this.loadCache;
  }

  private publishPlan(plan: Plan, maeW: number | null, now: number): void {
    const first = plan.actions[0]!;
    const next = plan.actions.find((a) => a.mode !== first.mode);
    const today = this.calendar.position(now).day;
    if (this.savedToday.day !== today) this.savedToday = { day: today, amount: 0, lastSlot: -1 };
    // Realised: each past slot of today at what its plan expected; ahead: the rest of today.
    const slot = Math.floor(now / QUARTER_MS);
    if (this.savedToday.lastSlot !== slot && this.savedToday.lastSlot >= 0)
      this.savedToday.amount += this.lastSlotSaving;
    this.savedToday.lastSlot = slot;
    this.lastSlotSaving = plan.slotSavings[0] ?? 0;
    const todayCount = plan.actions.filter((a) => this.calendar.position(a.start).day === today).length;
    const planned = savingOver(plan, todayCount);
    this.out.publish({
      planned_mode: LABEL[first.mode],
      planned_power: first.powerW,
      planned_target_soc: first.targetSoc,
      reason: first.reason,
      next_action: next
        ? `${LABEL[next.mode]} at ${clockTime(next.start, now, this.ctx.site.timeZone)}`
        : 'none planned',
      next_action_at: next ? new Date(next.start).toISOString().replace(/\.\d{3}Z$/, 'Z') : null,
      saving_today: Math.round((this.savedToday.amount + planned) * 100) / 100,
      load_forecast_error: maeW === null ? null : Math.round(maeW),
      solve_time: Math.round(plan.solveMs * 10) / 10,
    });
    const points = (f: (a: SlotAction) => number): Array<[number, number | null]> =>
      plan.actions.map((a) => [Math.floor(a.start / QUARTER_MS) * QUARTER_MS, f(a)]);
    const dev = this.outDevice;
    this.ctx.forecast.publish({
      series: {},
      plan: [
        {
          topic: `${dev}/soc_planned`,
          name: 'Planned state of charge',
          unit: '%',
          points: points((a) => a.socPercent),
        },
        {
          topic: `${dev}/battery_power_planned`,
          name: 'Planned battery power',
          unit: 'W',
          points: points((a) => a.batteryW),
        },
        { topic: `${dev}/grid_power_planned`, name: 'Planned grid power', unit: 'W', points: points((a) => a.gridW) },
        {
          topic: `${dev}/import_price_planned`,
          name: 'Import price the plan used',
          unit: '',
          points: points((a) => a.importPrice),
        },
        {
          topic: `${dev}/mode_planned`,
          name: 'Planned mode (0 normal, 1 hold, 2 charge, 3 discharge)',
          unit: '',
          points: points((a) => MODE_CODE[a.mode]),
        },
      ],
    });
  }

  private lastSlotSaving = 0;
  /** The device the planner's own topics are on (set by the plugin). */
  outDevice = 'planner_1';

  private async act(inputs: Inputs, now: number): Promise<void> {
    const a = this.plan!.actions[0]!;
    if (this.mode === 'dry-run') {
      this.out.publish({
        status: `dry-run: would set ${LABEL[a.mode]}${a.mode === 'charge' || a.mode === 'discharge' ? ` at ${a.powerW} W to ${a.targetSoc} %` : ''} on ${inputs.device}`,
      });
      return;
    }
    if (this.pause && now < this.pause.until) {
      this.out.publish({ status: this.pause.text });
      return;
    }
    this.pause = null;
    const dev = inputs.device;
    const values = await this.ctx.site.values({ filter: `${dev}/battery_control_*` });
    const mode = inputs.limits.modes.includes(a.mode) ? a.mode : 'normal';
    try {
      if (mode === 'charge' || mode === 'discharge') {
        const maxW = mode === 'charge' ? inputs.limits.maxChargeW : inputs.limits.maxDischargeW;
        const power = Math.min(maxW, Math.max(0, Math.round(a.powerW)));
        const target = Math.min(100, Math.max(inputs.limits.minSoc, Math.round(a.targetSoc)));
        if (values[`${dev}/battery_control_power`] !== power)
          await this.ctx.site.write({ topic: `${dev}/battery_control_power`, value: power });
        if (values[`${dev}/battery_control_target_soc`] !== target)
          await this.ctx.site.write({ topic: `${dev}/battery_control_target_soc`, value: target });
      }
      if (values[`${dev}/battery_control_mode`] !== LABEL[mode])
        await this.ctx.site.write({ topic: `${dev}/battery_control_mode`, value: LABEL[mode] });
      this.out.publish({ status: `active: ${LABEL[mode]} on ${dev}` });
    } catch (e) {
      // Not retried within the slot: one refusal is audited once, not at every check.
      const until = Math.floor(now / QUARTER_MS) * QUARTER_MS + QUARTER_MS;
      const why = `the write was refused: ${e instanceof Error ? e.message : String(e)}; trying again at ${clockTime(until, now, this.ctx.site.timeZone)}`;
      this.pause = { until, text: `normal: ${why}` };
      await this.fallback(why);
    }
  }

  /** Back to Normal (in active mode) and the status says why. */
  private async fallback(why: string): Promise<void> {
    this.out.publish({
      planned_mode: null,
      planned_power: null,
      planned_target_soc: null,
      next_action: null,
      next_action_at: null,
      reason: null,
    });
    if (this.mode !== 'active' || !this.device) {
      this.out.publish({ status: `${this.mode}: not planning: ${why}` });
      return;
    }
    await this.writeNormal(this.device, why);
  }

  private async writeNormal(device: string, why: string): Promise<void> {
    let status = `normal: ${why}`;
    try {
      const values = await this.ctx.site.values({ filter: `${device}/battery_control_mode` });
      const mode = values[`${device}/battery_control_mode`];
      if (mode !== undefined && mode !== null && mode !== 'Normal')
        await this.ctx.site.write({ topic: `${device}/battery_control_mode`, value: 'Normal' });
    } catch (e) {
      status += `; setting Normal failed too: ${e instanceof Error ? e.message : String(e)}`;
    }
    this.ctx.log.warn(status);
    this.out.publish({ status });
  }
}

const MODE_CODE = { normal: 0, hold: 1, charge: 2, discharge: 3 } as const;
