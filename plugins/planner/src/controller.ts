/**
 * The planner at work: reads the site, re-plans at every quarter hour and whenever prices,
 * the forecast or the state of charge move off plan (receding horizon), publishes the plan,
 * and in active mode commands the battery. Anything missing, stale or refused sends the
 * battery back to Normal and says why.
 *
 * A forced command (Hold, Charge, Discharge) lasts one lease on the device (30 min) unless it
 * is written again: the planner writes it again at every quarter hour, so the device goes back
 * to Normal by itself within the lease when the planner is gone. A refused write is tried again
 * after a back-off (30 s, doubling to 5 min); Normal is never held back by it.
 */
import { batteryModeLabel, batteryModeOf, type PluginContext, type SiteWrite } from '@heliograph/plugins-sdk';
import type { PlannerConfig, PlannerMode } from './config.js';
import { CarControl } from './car-control.js';
import { fuse as gridFuse } from './fuse.js';
import { type Inputs, readInputs } from './inputs.js';
import { loadForecast } from './load-inputs.js';
import { LocalCalendar } from './load-forecast.js';
import { measuredSoFar } from './measured.js';
import type { PlanParams } from './plan-input.js';
import { clockTime, type PlanMode, type SlotAction, zoneOffsets } from './modes.js';
import { type Plan, plannedGrid, QUARTER_MS, savingOver } from './plan.js';
import { PlanSolver } from './solver.js';

const HOUR = 3_600_000;
/** The first wait after a refused write, doubled after each refusal up to {@link RETRY_MAX_MS}. */
export const RETRY_FIRST_MS = 30_000;
const RETRY_MAX_MS = 5 * 60_000;

/** The last command a device confirmed, for a status that tells the truth when it goes silent. */
interface Commanded {
  mode: PlanMode;
  powerW: number;
  targetSoc: number;
  at: number;
  /** The device's lease at the time, s (0: it does not end the command by itself). */
  leaseS: number;
}

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
  /** Set by {@link stop}: no check acts any more. */
  private stopped = false;
  /** What the device last confirmed, and when. */
  private commanded: Commanded | null = null;
  /** The quarter hour whose forced command was written (renewing its lease). */
  private renewedSlot = -1;
  /** After a refused write: no forced command before `at`; Normal is still written. */
  private retry: { at: number; delayMs: number; why: string } | null = null;
  /** Since when the controlled device has not answered. */
  private unreachableSince: number | null = null;
  /** The chargers the planner read at the last check (the car planned, and why others are not). */
  private readonly car: CarControl;

  constructor(
    private readonly ctx: PluginContext,
    private readonly config: PlannerConfig,
    private readonly out: Outputs,
    mode: PlannerMode,
  ) {
    this.mode = mode;
    this.calendar = new LocalCalendar(ctx.site.timeZone);
    this.car = new CarControl(ctx, config);
  }

  /** One check, never two at once: re-plans if due and acts on the plan. */
  check(reason = 'scheduled'): Promise<void> {
    this.running = this.running
      .then(() => (this.stopped ? undefined : this.checkNow(reason)))
      .catch((e: unknown) => this.ctx.log.error(String(e)));
    return this.running;
  }

  /** A write by someone else to a controlled setting pauses the planner for the slot. */
  onWrite(write: SiteWrite, ownVia: string): void {
    // The driver ending a command at its start or stop is no one's wish: the plan goes on.
    if (write.via === ownVia || write.result !== 'ok' || write.byDriver) return;
    const now = this.ctx.now();
    const until = Math.floor(now / QUARTER_MS) * QUARTER_MS + QUARTER_MS;
    this.pause = {
      until,
      text: `paused: ${write.who} set ${write.topic} to ${write.value} (via ${write.via}); resuming at ${clockTime(until, now, this.ctx.site.timeZone)}`,
    };
    this.ctx.log.info(this.pause.text);
    this.out.publish({ status: this.pause.text });
  }

  /**
   * The planner stops: no check acts any more, and in active mode the battery goes back to
   * Normal, awaited (the host stops the drivers only after this). A device that cannot be
   * reached is named with the reason in the log and the audit.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    await this.solver.close();
    if (this.mode === 'active' && this.device) await this.writeNormal(this.device, 'the planner stopped');
  }

  /**
   * Switches between dry-run and active. Switching to active on a battery that another
   * controller commands is refused with its name (the mode stays dry-run).
   */
  async setMode(mode: PlannerMode): Promise<void> {
    const was = this.mode;
    this.mode = mode;
    if (was === 'active' && mode === 'dry-run' && this.device)
      await this.writeNormal(this.device, 'switched to dry-run');
    this.retry = null;
    await this.check('mode changed');
    const refusal = this.refusal();
    if (mode === 'active' && refusal && SECOND_CONTROLLER.test(refusal)) {
      this.mode = was;
      this.retry = null;
      throw new Error(refusal);
    }
  }

  /** Why the last write was refused, while the planner waits to try again. */
  private refusal(): string | null {
    return this.retry?.why ?? null;
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
      const silent = 'unavailable' in read && read.device ? this.silentDevice(read.device, now) : null;
      await this.fallback(silent ?? read.why);
      return;
    }
    const inputs = read.inputs;
    this.device = inputs.device;
    this.unreachableSince = null;
    const carChanged = await this.car.read(now);
    const due =
      this.replanReason(inputs, now) ??
      (reason === 'mode changed' ? reason : null) ??
      (carChanged ? 'the car changed' : null);
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
        // The zone's offsets from here: the solver's process words the plan without ICU.
        describe: {
          currency: inputs.currency,
          timeZone: this.ctx.site.timeZone,
          offsets: zoneOffsets(this.ctx.site.timeZone, now, now + (c.horizonHours + 1) * HOUR),
        },
        horizonMs: c.horizonHours * HOUR,
        ...(this.car.request ? { car: this.car.request } : {}),
        // Import and export kept apart: the search goes on from the last plan's choice.
        ...(this.plan ? { previousGridW: plannedGrid(this.plan) } : {}),
        measured: await measuredSoFar(this.ctx, c, now, inputs.pvW, this.calendar),
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

  /** The load forecast from history and the outside temperature, made again at most hourly. */
  private async loadForecast(now: number): Promise<{ values: Map<number, number>; maeW: number | null }> {
    // Hourly, or at every plan while there is no history to learn from yet (a fresh install).
    const cache = this.loadCache;
    if (cache && cache.maeW !== null && now - cache.at < HOUR && now >= cache.at) return cache;
    const { values, maeW } = await loadForecast(this.ctx, this.config, now);
    this.loadCache = { at: now, values, maeW };
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
      planned_mode: batteryModeLabel(first.mode),
      planned_power: first.powerW,
      planned_target_soc: first.targetSoc,
      reason: first.reason,
      next_action: next
        ? `${batteryModeLabel(next.mode)} at ${clockTime(next.start, now, this.ctx.site.timeZone)}`
        : 'none planned',
      next_action_at: next ? new Date(next.start).toISOString().replace(/\.\d{3}Z$/, 'Z') : null,
      saving_today: Math.round((this.savedToday.amount + planned) * 100) / 100,
      saving_planned: Math.round(savingOver(plan, plan.actions.length) * 100) / 100,
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
        {
          topic: `${dev}/car_power_planned`,
          name: 'Planned car charging power',
          unit: 'W',
          points: points((a) => plan.car?.powerW[plan.actions.indexOf(a)] ?? 0),
        },
      ],
    });
    this.out.publish({ car_plan: this.car.text(plan, now) });
  }

  private lastSlotSaving = 0;
  /** The device the planner's own topics are on (set by the plugin). */
  outDevice = 'planner_1';

  private async act(inputs: Inputs, now: number): Promise<void> {
    const a = this.plan!.actions[0]!;
    const dev = inputs.device;
    const { mode, refused } = this.allowedMode(a.mode, inputs);
    if (this.mode === 'dry-run') {
      const carNote = await this.car.write(this.plan, this.mode, now);
      this.out.publish({
        status: `dry-run: would set ${batteryModeLabel(mode)}${mode === 'charge' || mode === 'discharge' ? ` at ${a.powerW} W to ${a.targetSoc} %` : ''} on ${dev}${refused}${carNote}${inputs.note ?? ''}`,
      });
      return;
    }
    if (this.pause && now < this.pause.until) {
      this.out.publish({ status: this.pause.text });
      return;
    }
    this.pause = null;
    if (this.retry && now < this.retry.at && mode !== 'normal') {
      // Still waiting after a refusal: nothing forced, but Normal is not held back.
      await this.writeNormal(dev, this.retry.why);
      return;
    }
    const values = await this.ctx.site.values({ filter: `${dev}/battery_control_*` });
    const slot = Math.floor(now / QUARTER_MS);
    // A forced command is written again once per quarter hour: that renews its lease.
    const renew = mode !== 'normal' && this.renewedSlot !== slot;
    const power = mode === 'charge' ? inputs.limits.maxChargeW : inputs.limits.maxDischargeW;
    const command = {
      mode,
      powerW: Math.min(power, Math.max(0, Math.round(a.powerW))),
      targetSoc: Math.min(100, Math.max(inputs.limits.minSoc, Math.round(a.targetSoc))),
    };
    const fuse =
      mode === 'charge' ? await gridFuse(this.ctx, this.config, { dev, plannedW: command.powerW, values }) : null;
    if (fuse) command.powerW = fuse.powerW;
    this.fuseLog(fuse);
    try {
      // One write: the mode with the power and target it runs at (one audit entry, one apply).
      const forced = mode === 'charge' || mode === 'discharge';
      const changed =
        batteryModeOf(values[`${dev}/battery_control_mode`]) !== mode ||
        (forced &&
          (values[`${dev}/battery_control_power`] !== command.powerW ||
            values[`${dev}/battery_control_target_soc`] !== command.targetSoc));
      if (changed || renew)
        await this.ctx.site.write({
          topic: `${dev}/battery_control_mode`,
          value: mode,
          ...(forced
            ? { together: { battery_control_power: command.powerW, battery_control_target_soc: command.targetSoc } }
            : {}),
        });
      if (mode !== 'normal') this.renewedSlot = slot;
      this.retry = null;
      this.commanded = { ...command, at: now, leaseS: inputs.limits.leaseS };
      const carNote = await this.car.write(this.plan, this.mode, now);
      this.out.publish({
        status: `active: ${batteryModeLabel(mode)} on ${dev}${refused}${fuse ? `; ${fuse.note}` : ''}${carNote}${inputs.note ?? ''}`,
      });
    } catch (e) {
      const delayMs = Math.min(RETRY_MAX_MS, this.retry ? this.retry.delayMs * 2 : RETRY_FIRST_MS);
      const at = now + delayMs;
      const why = `the write was refused: ${e instanceof Error ? e.message : String(e)}; trying again at ${clockTime(at, now, this.ctx.site.timeZone)}`;
      this.retry = { at, delayMs, why };
      await this.fallback(why);
    }
  }

  /** Logs the fuse's doing when its power changes, not at every check. */
  private fuseLog(fuse: { powerW: number; note: string } | null): void {
    const powerW = fuse?.powerW ?? null;
    if (powerW === this.fusedW) return;
    if (fuse) this.ctx.log.warn(fuse.note);
    else this.ctx.log.info('charge power back to the plan: the grid is under its import limit');
    this.fusedW = powerW;
  }

  /** The power the fuse last lowered a charge to, W; null while it did not. */
  private fusedW: number | null = null;

  /**
   * The plan's mode as this device may be told it: one it does not support is Normal, and so
   * are Charge and Discharge on a device that cannot end a forced command by itself, unless
   * the owner accepted that risk. `refused` explains a change for the status.
   */
  private allowedMode(planned: PlanMode, inputs: Inputs): { mode: PlanMode; refused: string } {
    const modes = inputs.limits.modes;
    const held = this.car.hold(planned, this.plan, modes);
    if (held) return held;
    if (!modes.includes(planned)) return { mode: 'normal', refused: '' };
    const unbounded = inputs.limits.leaseS <= 0 && !this.config.acceptUnboundedControl;
    if (unbounded && (planned === 'charge' || planned === 'discharge'))
      return {
        mode: 'normal',
        refused: ` (the plan says ${batteryModeLabel(planned)}, refused: ${inputs.device} cannot end a forced command by itself; acceptUnboundedControl allows it)`,
      };
    return { mode: planned, refused: '' };
  }

  /**
   * The status while the controlled device does not answer: what it was last told and when,
   * since when it is silent, and when its lease ends (by then it is back to Normal by itself).
   */
  private silentDevice(device: string, now: number): string {
    this.unreachableSince ??= now;
    const tz = this.ctx.site.timeZone;
    const since = `${device} unreachable since ${clockTime(this.unreachableSince, now, tz)}`;
    const c = this.commanded;
    if (this.mode !== 'active' || !c || c.mode === 'normal') return `${device} is unavailable`;
    const what =
      c.mode === 'charge' || c.mode === 'discharge'
        ? `${batteryModeLabel(c.mode)} ${c.powerW} W to ${c.targetSoc} %`
        : batteryModeLabel(c.mode);
    const end =
      c.leaseS > 0
        ? `; it returns to Normal by itself by ${clockTime(c.at + c.leaseS * 1000, now, tz)}`
        : '; it cannot end the command by itself';
    return `unknown: last command ${what} at ${clockTime(c.at, now, tz)}, ${since}${end}`;
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
      saving_planned: null,
      car_plan: `no car planned: ${why}`,
    });
    if (this.mode !== 'active' || !this.device) {
      this.out.publish({ status: `${this.mode}: not planning: ${why}` });
      return;
    }
    if (why.startsWith('unknown: ')) {
      // Nothing can be written to a silent device: it ends the command by itself at the lease.
      this.out.publish({ status: why });
      return;
    }
    await this.writeNormal(this.device, why);
  }

  private async writeNormal(device: string, why: string): Promise<void> {
    let status = `normal: ${why}`;
    try {
      const values = await this.ctx.site.values({ filter: `${device}/battery_control_mode` });
      const mode = values[`${device}/battery_control_mode`];
      if (mode !== undefined && mode !== null && batteryModeOf(mode) !== 'normal') {
        await this.ctx.site.write({ topic: `${device}/battery_control_mode`, value: 'normal' });
        this.commanded = { mode: 'normal', powerW: 0, targetSoc: 0, at: this.ctx.now(), leaseS: 0 };
      }
    } catch (e) {
      // The write path has audited the failure; the log names the device and the reason.
      status += `; setting Normal on ${device} failed too: ${e instanceof Error ? e.message : String(e)}`;
    }
    this.ctx.log.warn(status);
    this.out.publish({ status });
  }
}

const MODE_CODE = { normal: 0, hold: 1, charge: 2, discharge: 3 } as const;
/** How the core words the refusal of a second controller on one battery. */
const SECOND_CONTROLLER = /one controller per battery/;
