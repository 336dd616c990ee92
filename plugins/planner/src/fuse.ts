/** The controller's fuse: the grid import limit held on the live grid power while charging. */
import { batteryModeOf, type PluginContext } from '@heliograph/plugins-sdk';
import type { PlannerConfig } from './config.js';

/**
 * The grid import limit at execution: the plan keeps to it with the forecast load, the
 * fuse with the live grid power. Charging may take what the grid has left under the limit
 * (the live import less the charging already commanded); less than planned lowers the
 * command's power, which the write path audits like every command. Null when the planned
 * power fits, or the grid power is not known.
 */
export async function fuse(
  ctx: PluginContext,
  config: PlannerConfig,
  { dev, plannedW, values }: { dev: string; plannedW: number; values: Record<string, unknown> },
): Promise<{ powerW: number; note: string } | null> {
  const topic = config.gridPowerTopic;
  const grid = (await ctx.site.values({ filter: topic }))[topic];
  if (typeof grid !== 'number' || !Number.isFinite(grid)) return null;
  const power = values[`${dev}/battery_control_power`];
  const charging =
    batteryModeOf(values[`${dev}/battery_control_mode`]) === 'charge' && typeof power === 'number' ? power : 0;
  const limit = config.gridImportLimitW;
  const room = Math.floor(limit - (grid - charging));
  if (room >= plannedW) return null;
  const powerW = Math.max(0, room);
  return {
    powerW,
    note: `charge lowered from ${plannedW} W to ${powerW} W: the grid imports ${Math.round(grid)} W, the limit is ${limit} W`,
  };
}
