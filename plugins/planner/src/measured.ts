/**
 * What the site measured so far, for the plan's nowcast (plan.ts `nowcast`): the mean PV and
 * load of the quarter before the current one, and the PV made today against its forecast,
 * from the recorded history.
 */
import type { PluginContext } from '@heliograph/plugins-sdk';
import type { PlannerConfig } from './config.js';
import type { LocalCalendar } from './load-forecast.js';
import { type PlanRequest, pvGuess, QUARTER_MS } from './plan.js';

/** The site's total PV power (what inputs.ts calibrates the forecast against). */
const ACTUAL_PV = 'total/pv_power';

/**
 * The last whole quarter hour's mean PV and load, W (a topic without a record there is left
 * out), and today's PV: from local midnight to the current quarter hour, the energy made and
 * the energy `pvW` (the calibrated forecast, W per quarter-hour start) gave the same quarter
 * hours, or where it has none the nearest day's, as the plan takes it (plan.ts `pvAt`), kWh.
 * Midnight by the site's `calendar`.
 */
export async function measuredSoFar(
  ctx: PluginContext,
  config: PlannerConfig,
  now: number,
  pvW: ReadonlyMap<number, number>,
  calendar: LocalCalendar,
): Promise<NonNullable<PlanRequest['measured']>> {
  const to = Math.floor(now / QUARTER_MS) * QUARTER_MS;
  const midnight = calendar.dayStart(to);
  const means = (topic: string, fromMs: number) =>
    ctx.site
      .history({ topic, fromMs, toMs: to, groupBy: '15m', agg: 'mean' })
      .then((points) => points.filter((p) => p.time >= fromMs && p.time < to && Number.isFinite(p.value)))
      .catch(() => []);
  const [pv, load] = await Promise.all([means(ACTUAL_PV, midnight), means(config.loadTopic, to - QUARTER_MS)]);
  const last = (points: typeof pv) => points.find((p) => p.time === to - QUARTER_MS)?.value;
  let madeKwh = 0;
  let forecastKwh = 0;
  for (const p of pv) {
    const forecast = pvGuess(pvW, p.time);
    if (forecast === undefined) continue;
    madeKwh += (Math.max(0, p.value) * 0.25) / 1000;
    forecastKwh += (forecast * 0.25) / 1000;
  }
  const pvLast = last(pv);
  const loadLast = last(load);
  return {
    ...(pvLast === undefined ? {} : { pvW: pvLast }),
    ...(loadLast === undefined ? {} : { loadW: loadLast }),
    pvToday: { madeKwh, forecastKwh, dayEnd: calendar.dayEnd(to) },
  };
}
