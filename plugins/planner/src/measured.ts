/**
 * The last quarter hour as the site measured it, for the plan's nowcast (plan.ts `nowcast`):
 * the mean PV and load of the quarter before the current one, from the recorded history.
 */
import type { PluginContext } from '@heliograph/plugins-sdk';
import type { PlannerConfig } from './config.js';
import { QUARTER_MS } from './plan.js';

/** The site's total PV power (what inputs.ts calibrates the forecast against). */
const ACTUAL_PV = 'total/pv_power';

/** Mean PV and load of the last whole quarter hour, W; a topic without a record there is left out. */
export async function lastQuarter(
  ctx: PluginContext,
  config: PlannerConfig,
  now: number,
): Promise<{ pvW?: number; loadW?: number }> {
  const to = Math.floor(now / QUARTER_MS) * QUARTER_MS;
  const mean = (topic: string) =>
    ctx.site
      .history({ topic, fromMs: to - QUARTER_MS, toMs: to, groupBy: '15m', agg: 'mean' })
      .then((points) => points.filter((p) => p.time >= to - QUARTER_MS && p.time < to).at(-1)?.value)
      .catch(() => undefined);
  const [pvW, loadW] = await Promise.all([mean(ACTUAL_PV), mean(config.loadTopic)]);
  return { ...(pvW === undefined ? {} : { pvW }), ...(loadW === undefined ? {} : { loadW }) };
}
