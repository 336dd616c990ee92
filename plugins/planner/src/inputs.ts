/**
 * What the planner reads of the site through `ctx.site`: the controlled device and its
 * battery limits, the state of charge, the price book, the PV forecast and the load history.
 * Each missing or stale input is a reason in words, never a guess.
 */
import type { MetricValue, PluginContext, SitePrices } from '@heliograph/plugins-sdk';
import type { PlannerConfig } from './config.js';
import { forecastLoad, LocalCalendar } from './load-forecast.js';
import { clockTime } from './modes.js';
import { type CarRequest, type PriceInput, QUARTER_MS } from './plan.js';
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

const num = (v: MetricValue | undefined): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

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

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The load forecast for every quarter hour of the horizon from `now`, W, from the recorded
 * load and the outside temperature (load-forecast.ts), and its error on the last recorded days.
 */
export async function loadForecast(
  ctx: PluginContext,
  config: PlannerConfig,
  now: number,
): Promise<{ values: Map<number, number>; maeW: number | null }> {
  const historyMs = config.historyWeeks * 7 * 24 * HOUR_MS;
  // From the quarter before now's: the plan compares it with what was measured (plan.ts nowcast).
  const start = Math.floor(now / QUARTER_MS) * QUARTER_MS - QUARTER_MS;
  const targets = Array.from(
    { length: (config.horizonHours * HOUR_MS) / QUARTER_MS + 2 },
    (_, i) => start + i * QUARTER_MS,
  );
  const [history, temperatureC] = await Promise.all([
    ctx.site
      .history({ topic: config.loadTopic, fromMs: now - historyMs, toMs: now, groupBy: '15m', agg: 'mean' })
      .catch(() => []),
    readTemperature(ctx, now, targets[targets.length - 1]! + QUARTER_MS, historyMs).catch(() => []),
  ]);
  const f = forecastLoad({ history, targets, timeZone: ctx.site.timeZone, weeks: config.historyWeeks, temperatureC });
  const term = f.temperature;
  ctx.log.debug(
    term
      ? `load forecast: ${term.heatingAllHours.toFixed(0)} W per heating degree, ${term.coolingAllHours.toFixed(0)} W per cooling degree (${(term.dayGain * 100).toFixed(0)} % of the day-to-day error explained)`
      : 'load forecast: no temperature term',
  );
  const values = new Map<number, number>();
  targets.forEach((t, i) => {
    const v = f.values[i];
    if (v !== null && v !== undefined) values.set(t, v);
  });
  return { values, maeW: f.maeW };
}

const OUTSIDE_TEMPERATURE = 'weather/outside_temperature';
const TEMPERATURE_KEY = 'outsideTemperatureC';

/** The planner's record of past outside temperatures, °C: hourly means from `fromHour` (Unix ms / 1 h) on. */
interface TemperatureRecord {
  fromHour: number;
  celsius: Array<number | null>;
}

const isRecord = (v: unknown): v is TemperatureRecord =>
  typeof v === 'object' &&
  v !== null &&
  Number.isInteger((v as TemperatureRecord).fromHour) &&
  Array.isArray((v as TemperatureRecord).celsius) &&
  (v as TemperatureRecord).celsius.every((c) => c === null || Number.isFinite(c));

/**
 * The outside temperature, °C, from `keepMs` before `now` to `toMs`: the forecast's (its past
 * 48 hours as it last stood and what it says ahead, in the site's unit) and, for older hours,
 * the planner's own record of what the forecast said of each past hour. History does not
 * record `weather/outside_temperature` (the forecast store records only the PV forecast), so
 * the planner keeps hourly means in its store for as long as it learns the load from
 * (`keepMs`), in °C whatever the site's unit. Empty without a forecast of the temperature.
 */
export async function readTemperature(
  ctx: PluginContext,
  now: number,
  toMs: number,
  keepMs: number,
): Promise<Array<{ time: number; value: number }>> {
  const forecast = await ctx.site.forecast({ topic: OUTSIDE_TEMPERATURE, fromMs: now - keepMs, toMs }).catch(() => []);
  const toC = ctx.site.temperatureUnit === 'F' ? (f: number) => ((f - 32) * 5) / 9 : (c: number) => c;
  const points = forecast.map((p) => ({ time: p.time, value: toC(p.value) }));

  // Past hours as the forecast has them now, into the record; the record's older hours kept.
  const nowHour = Math.floor(now / HOUR_MS);
  const fromHour = Math.floor((now - keepMs) / HOUR_MS);
  const stored = await ctx.store.get(TEMPERATURE_KEY).catch(() => undefined);
  const hours = new Map<number, number>();
  if (isRecord(stored))
    stored.celsius.forEach((c, i) => {
      if (c !== null && stored.fromHour + i >= fromHour) hours.set(stored.fromHour + i, c);
    });
  const sums = new Map<number, [number, number]>();
  for (const p of points) {
    const h = Math.floor(p.time / HOUR_MS);
    if (h >= nowHour || h < fromHour) continue;
    const s = sums.get(h) ?? [0, 0];
    s[0] += p.value;
    s[1]++;
    sums.set(h, s);
  }
  for (const [h, [total, n]] of sums) hours.set(h, Math.round((total / n) * 10) / 10);
  if (hours.size > 0) {
    const first = Math.min(...hours.keys());
    const last = Math.max(...hours.keys());
    const record: TemperatureRecord = {
      fromHour: first,
      celsius: Array.from({ length: last - first + 1 }, (_, i) => hours.get(first + i) ?? null),
    };
    if (JSON.stringify(record) !== JSON.stringify(stored))
      await ctx.store
        .set(TEMPERATURE_KEY, record)
        .catch((e: unknown) => ctx.log.warn(`temperature record not kept: ${String(e)}`));
  }
  // The record for the hours the forecast no longer holds, the forecast for the rest.
  const covered = new Set(points.map((p) => Math.floor(p.time / HOUR_MS)));
  const older = [...hours].filter(([h]) => !covered.has(h)).map(([h, c]) => ({ time: h * HOUR_MS, value: c }));
  return [...older, ...points];
}

/** Per-phase voltage the charger's currents are turned into power with (the OCPP plugin's). */
const CHARGER_VOLTAGE = 230;

/** The car the plan charges, and for the status why any other charger's car is not planned. */
export interface CarRead {
  car: CarRequest | null;
  /** Per charger in mode `planned` not planned: why, in words. */
  notes: string[];
  /** Chargers in mode `planned` whose car has reached its target: told 0 W, not left to their default. */
  done: string[];
  /**
   * Chargers in another mode (`now`, `min+pv`, `pv`) whose car draws now with the home battery
   * not allowed to feed it: the planner keeps the battery off the car for them too, since an
   * active planner is the battery's one controller (the ocpp plugin leaves it to the planner).
   */
  drawing: string[];
  /** Identifies what the plan was made for (not the energy charged meanwhile). */
  key: string;
}

/**
 * The chargers in charging mode `planned` (the configured ones, else every device with a
 * `planned_power` setting) and the first one's car that needs energy: its plan target as
 * energy at the charger, its deadline, its power limits. The need is `plan_energy` (kWh to add
 * to the car) less what the session has charged, over the efficiency; without it `plan_soc`
 * less the car's reported `vehicle_soc`, times `carCapacityKwh`.
 */
export async function readCar(ctx: PluginContext, config: PlannerConfig, now: number): Promise<CarRead> {
  const defs = await ctx.site.definitions();
  const planned = defs.filter((d) => d.topic.endsWith('/planned_power'));
  const devices = config.chargers ?? planned.map((d) => d.deviceId);
  const notes: string[] = [];
  const done: string[] = [];
  const drawing: string[] = [];
  let car: CarRequest | null = null;
  for (const device of devices) {
    const def = planned.find((d) => d.deviceId === device);
    if (!def) {
      notes.push(`${device} has no planned_power setting`);
      continue;
    }
    const v = await ctx.site.values({ filter: `${device}/*` });
    const mode = v[`${device}/mode`];
    if (mode === null || v[`${device}/online`] === false || v[`${device}/online`] === null) {
      notes.push(`${device} is unavailable: its car is not planned`);
      continue;
    }
    if (mode !== 'planned') {
      if ((num(v[`${device}/power`]) ?? 0) > 0 && v[`${device}/allow_battery_to_car`] !== true) drawing.push(device);
      continue;
    }
    if (v[`${device}/car_connected`] !== true) {
      notes.push(`${device}: no car plugged in`);
      continue;
    }
    const need = carNeed(v, device, config);
    if (need === null) {
      notes.push(`${device}: no plan target (plan_energy, or plan_soc with the car's SoC reported)`);
      continue;
    }
    if (need <= 0) {
      notes.push(`${device}: the plan target is reached`);
      done.push(device);
      continue;
    }
    const deadlineText = v[`${device}/plan_deadline`];
    const deadline = typeof deadlineText === 'string' ? nextLocalTime(now, deadlineText, ctx.site.timeZone) : null;
    if (deadline === null) {
      notes.push(`${device}: no plan deadline`);
      continue;
    }
    const phases = num(v[`${device}/active_phases`]) === 1 ? 1 : 3;
    const perAmp = phases * CHARGER_VOLTAGE;
    const rating = def.writable && 'max' in def.writable ? def.writable.max : Infinity;
    const maxW = Math.min(rating, (num(v[`${device}/max_current`]) ?? 16) * perAmp);
    const minW = Math.min(maxW, (num(v[`${device}/min_current`]) ?? 6) * perAmp);
    if (car) {
      notes.push(`${device}: not planned, one car at a time (${car.device} is)`);
      continue;
    }
    car = {
      device,
      needKwh: need,
      deadline,
      maxW,
      minW,
      allowBattery: v[`${device}/allow_battery_to_car`] === true,
      livePowerW: num(v[`${device}/power`]) ?? 0,
    };
  }
  const key = car
    ? `${car.device}:${car.deadline}:${car.maxW}:${car.minW}:${car.allowBattery}:${notes.join('|')}`
    : notes.join('|');
  return { car, notes, done, drawing, key };
}

/** The energy the car still needs, kWh at the charger; null without a target it can be told from. */
function carNeed(v: Record<string, MetricValue>, device: string, config: PlannerConfig): number | null {
  const eff = config.carEfficiency;
  const session = num(v[`${device}/session_energy`]) ?? 0;
  const energy = num(v[`${device}/plan_energy`]) ?? 0;
  if (energy > 0) return energy / eff - session;
  const target = num(v[`${device}/plan_soc`]) ?? 0;
  const soc = num(v[`${device}/vehicle_soc`]);
  if (target > 0 && soc !== null) return (((target - soc) / 100) * config.carCapacityKwh) / eff;
  return null;
}

/** The next moment after `now` when the local clock of `timeZone` shows `hh:mm`; null if not a time. */
export function nextLocalTime(now: number, hhmm: string, timeZone: string): number | null {
  const m = /^(\d{2}):(\d{2})$/.exec(hhmm);
  if (!m) return null;
  const want = Number(m[1]) * 60 + Number(m[2]);
  const calendar = new LocalCalendar(timeZone);
  const minuteStart = Math.floor(now / 60_000) * 60_000;
  const here = calendar.position(minuteStart).minute;
  let candidate = minuteStart + ((want - here + 1440) % 1440 || 1440) * 60_000;
  // Across a change of summer time the local clock moved: step to the wanted minute.
  for (let i = 0; i < 2; i++) {
    const off = calendar.position(candidate).minute - want;
    if (off === 0) break;
    candidate -= (((off + 720 + 1440) % 1440) - 720) * 60_000;
  }
  return candidate > now ? candidate : candidate + 24 * 3_600_000;
}
