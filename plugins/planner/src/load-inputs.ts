/**
 * The load forecast's inputs, read of the site: the recorded load and the outside temperature
 * (the forecast's, and the planner's own record of past hours).
 */
import type { PluginContext } from '@heliograph/plugins-sdk';
import type { PlannerConfig } from './config.js';
import { forecastLoad } from './load-forecast.js';
import { QUARTER_MS } from './plan.js';

const HOUR_MS = 3_600_000;

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
