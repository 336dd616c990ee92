/**
 * What the battery plan needs of the site through `ctx.site`: the controlled device and its
 * battery limits, the state of charge, the price book and the PV forecast, or why not. Each
 * missing or stale input is a reason in words, never a guess: without a plan the battery stays
 * in Normal. The load forecast's inputs are read in load-inputs.ts, the car's in car-inputs.ts.
 */
import type { MetricValue, PluginContext, SitePrices } from '@heliograph/plugins-sdk';
import type { PlannerConfig } from './config.js';
import { clockTime } from './modes.js';
import { type PriceInput, QUARTER_MS } from './plan.js';
import {
  applyCalibration,
  calibratePv,
  calibrationWindow,
  describeFactors,
  type PvCalibration,
} from './pv-calibration.js';

export interface Limits {
  capacityKwh: number;
  maxChargeW: number;
  maxDischargeW: number;
  minSoc: number;
  modes: string[];
  /** How long the device holds a forced command by itself, s; 0: it cannot bound one. */
  leaseS: number;
}

export interface Inputs {
  device: string;
  limits: Limits;
  socPercent: number;
  currency: string;
  prices: PriceInput[];
  pvW: Map<number, number>;
  /** Identifies the price book and forecast the plan was made from. */
  key: string;
  /**
   * For the status, from `; `: the price provider failed (its prices planned on are its last
   * ones), or the PV forecast has nothing for the next hours (the nearest day's taken).
   */
  note?: string;
}

export type Read = { ok: true; inputs: Inputs } | { ok: false; device: string | null; why: string; unavailable?: true };

/** A reading as a number, null when it is missing, not a number or not finite. */
export const num = (v: MetricValue | undefined): number | null =>
  typeof v === 'number' && Number.isFinite(v) ? v : null;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The device offering battery control: the configured one, else the first there is. */
export async function findDevice(ctx: PluginContext, config: PlannerConfig): Promise<string | null> {
  if (config.device) return config.device;
  const defs = await ctx.site.definitions();
  const mode = defs.find((d) => d.topic.endsWith('/battery_control_mode'));
  return mode ? mode.topic.slice(0, mode.topic.indexOf('/')) : null;
}

/**
 * The price provider's trouble as the grid answer's status says it, in words: its plugin
 * failed (the reason, the time of its last good data), or its prices ended; undefined when
 * neither.
 */
export function priceTrouble(book: SitePrices, now: number, timeZone: string): string | undefined {
  const { provider, status } = book;
  if (!provider) return undefined;
  const at = (time: number) => clockTime(time, now, timeZone);
  if (status?.state === 'failed')
    return (
      `prices from ${provider} failed` +
      (status.lastData === null ? '' : ` (last good data at ${at(status.lastData)})`) +
      (status.message ? `: ${status.message}` : '')
    );
  const end = book.slots.reduce((last, s) => Math.max(last, s.end), -Infinity);
  if (end !== -Infinity && end <= now) return `prices from ${provider} ended at ${at(end)}`;
  return undefined;
}

export async function readInputs(ctx: PluginContext, config: PlannerConfig, now: number): Promise<Read> {
  const device = await findDevice(ctx, config);
  if (!device) return { ok: false, device: null, why: 'no device offers battery control' };
  const values = await ctx.site.values({
    filter: [`${device}/battery_*`, 'total/battery_state_of_charge', 'battery_1/state_of_charge'],
  });
  if (!(`${device}/battery_control_mode` in values))
    return { ok: false, device, why: `${device} offers no battery control` };
  if (values[`${device}/battery_control_mode`] === null)
    return { ok: false, device, why: `${device} is unavailable`, unavailable: true };
  const capacityKwh = num(values[`${device}/battery_capacity`]);
  const maxChargeW = num(values[`${device}/battery_max_charge_power`]);
  const maxDischargeW = num(values[`${device}/battery_max_discharge_power`]);
  const minSoc = num(values[`${device}/battery_min_soc`]) ?? 0;
  // A driver from before leases (SDK 1.2) publishes none: it cannot bound a command either.
  const leaseS = num(values[`${device}/battery_control_lease`]) ?? 0;
  if (capacityKwh === null || maxChargeW === null || maxDischargeW === null)
    return { ok: false, device, why: `${device} does not say its battery's limits` };
  const socPercent =
    num(values['total/battery_state_of_charge']) ??
    num(values[`${device}/battery_state_of_charge`]) ??
    num(values['battery_1/state_of_charge']);
  if (socPercent === null) return { ok: false, device, why: 'the state of charge is missing or stale' };

  const defs = await ctx.site.definitions();
  const modeDef = defs.find((d) => d.topic === `${device}/battery_control_mode`) as
    { writable?: { options?: string[] } } | undefined;
  const modes = (modeDef?.writable?.options ?? ['Normal', 'Hold', 'Charge', 'Discharge']).map((m) => m.toLowerCase());

  const book = await ctx.site.prices();
  const trouble = priceTrouble(book, now, ctx.site.timeZone);
  const prices: PriceInput[] = book.slots.map((s) => ({
    start: s.start,
    end: s.end,
    import: s.importPrice,
    export: config.exportPaid ? s.exportPrice : 0,
  }));
  if (!prices.some((p) => p.start <= now && p.end > now))
    return { ok: false, device, why: ['no price for now', trouble].filter(Boolean).join(': ') };

  // From two days back (as far as the forecast keeps): the plan compares today's PV so far
  // with it (measured.ts), and a quarter it leaves out takes the nearest day's (plan.ts `pvAt`).
  const forecast = await ctx.site.forecast({
    fromMs: Math.floor(now / QUARTER_MS) * QUARTER_MS - 2 * DAY_MS,
    toMs: now + config.horizonHours * 3_600_000,
  });
  const rawPvW = new Map<number, number>();
  for (const p of forecast) rawPvW.set(p.time, p.value);
  // Whether the forecast has the next 6 hours, or the same hours `shiftMs` away.
  const covers = (shiftMs: number) =>
    forecast.some((p) => p.time - shiftMs >= now - QUARTER_MS && p.time - shiftMs < now + 6 * HOUR_MS);
  const borrowed = !covers(0);
  if (borrowed && ![-DAY_MS, DAY_MS, -2 * DAY_MS, 2 * DAY_MS].some(covers))
    return { ok: false, device, why: 'no PV forecast for the next hours' };
  const pvNote = borrowed ? "no PV forecast for the next hours: planned on the nearest day's" : undefined;
  const pvW = applyCalibration(rawPvW, (await pvCalibration(ctx, now)).factors, ctx.site.timeZone);

  const last = prices[prices.length - 1]!;
  const key = `${prices.length}:${prices[0]!.start}:${last.end}:${prices.reduce((a, p) => a + p.import, 0).toFixed(4)}:${prices.reduce((a, p) => a + (p.export ?? 0), 0).toFixed(4)}:${forecast.length}:${[...pvW.values()].reduce((a, v) => a + v, 0).toFixed(0)}`;
  return {
    ok: true,
    inputs: {
      device,
      limits: { capacityKwh, maxChargeW, maxDischargeW, minSoc, modes, leaseS },
      socPercent,
      currency: book.currency ?? '',
      prices,
      pvW,
      key,
      ...(trouble || pvNote ? { note: `; ${[trouble, pvNote].filter(Boolean).join('; ')}` } : {}),
    },
  };
}

const ACTUAL_PV = 'total/pv_power';
const PROVIDER_PV = 'weather/pv_power_predicted';
const calibrations = new WeakMap<PluginContext, { hour: number; calibration: PvCalibration }>();

/**
 * The PV calibration of this planner (see pv-calibration.ts), learnt again once an hour from
 * history and published on its device then: the factors and the error before and after.
 * Without history (a fresh install, a server without it) every factor is 1.
 */
async function pvCalibration(ctx: PluginContext, now: number): Promise<PvCalibration> {
  const hour = Math.floor(now / 3_600_000);
  const cached = calibrations.get(ctx);
  if (cached && cached.hour === hour) return cached.calibration;
  const window = calibrationWindow(now);
  const read = (topic: string) => ctx.site.history({ topic, ...window, groupBy: '1h', agg: 'mean' }).catch(() => []);
  const [actual, forecast] = await Promise.all([read(ACTUAL_PV), read(PROVIDER_PV)]);
  const calibration = calibratePv({ actual, forecast, now, timeZone: ctx.site.timeZone });
  calibrations.set(ctx, { hour, calibration });
  const round = (w: number | null) => (w === null ? null : Math.round(w));
  ctx.topics.publish({
    device: ctx.devices[0]?.id ?? 'planner_1',
    values: {
      pv_calibration: describeFactors(calibration),
      pv_forecast_error_raw: round(calibration.maeRawW),
      pv_forecast_error: round(calibration.maeCalibratedW),
    },
  });
  return calibration;
}
