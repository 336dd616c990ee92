import Router from '../router.js';
import { z } from 'zod';
import { scope } from '../auth.js';
import { ENERGY_PERIODS, formatInZone, type EnergyPeriod } from '../../energy/period-buckets.js';
import type { PeriodEnergy } from '../../energy/period-energy.js';
import { ApiError } from '../errors.js';
import { parseQuery, requiredRfc3339Param } from '../query.js';
import type { EnergyResponse } from '../../contract/types.js';

const DAY_MS = 86_400_000;

/** The longest range of each period: a month of hours, a year of days, ten years of months or years. */
export const MAX_RANGE_DAYS: Record<EnergyPeriod, number> = { hour: 31, day: 367, month: 3660, year: 3660 };

export const energyQuery = z.strictObject({
  period: z.enum(ENERGY_PERIODS, {
    error: `period is required: one of ${ENERGY_PERIODS.join(', ')}`,
  }),
  from: requiredRfc3339Param('from'),
  to: requiredRfc3339Param('to'),
});

/**
 * The parameters alone: an unknown one is refused first, whatever the values of the others.
 * Each may be absent here (zod counts an absent key as missing unless its schema is optional),
 * so a missing one is named by energyQuery's own words.
 */
const energyKeys = z.strictObject({
  period: z.unknown().optional(),
  from: z.unknown().optional(),
  to: z.unknown().optional(),
});

/**
 * GET /api/v1/energy: energy and money per calendar hour, day, month or year overlapping
 * [from, to), each in the zone in force at its start, read from stored history by the
 * rules in force when it was recorded (energy/period-energy.ts).
 */
export function energyRoutes(deps: { energy: () => PeriodEnergy | undefined; unavailable: () => string }): Router {
  const router = new Router();
  router.get('/energy', scope('read'), async (ctx) => {
    parseQuery(energyKeys, ctx.query);
    const { period, from, to } = parseQuery(energyQuery, ctx.query);
    if (from >= to) throw new ApiError('QUERY_INVALID', 'from must be before to');
    const max = MAX_RANGE_DAYS[period];
    if (to - from > max * DAY_MS)
      throw new ApiError('QUERY_INVALID', `from and to may be at most ${max} days apart for period=${period}`);
    const energy = deps.energy();
    if (!energy)
      throw new ApiError('HISTORY_UNAVAILABLE', `energy figures are read from history: ${deps.unavailable()}`);
    const { currency, buckets } = await energy.figures(period, from, to);
    const body: EnergyResponse = {
      period,
      currency,
      buckets: buckets.map((b) => ({
        from: formatInZone(b.from, b.zone),
        to: formatInZone(b.to, b.zone),
        time_zone: b.zone,
        energy: b.energy,
        money: b.money,
      })),
    };
    ctx.body = body;
  });
  return router;
}
