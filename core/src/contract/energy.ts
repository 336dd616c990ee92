import { z } from 'zod';

/** RFC 3339 at whole seconds with the offset of the bucket's zone (`2026-11-23T00:00:00+01:00`). */
const zonedTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/, 'an RFC 3339 time with whole seconds and an offset');

/** kWh each `total/*_energy` counter rose in a bucket. */
export const periodEnergy = z.object({
  pv: z.number(),
  load: z.number(),
  battery_in: z.number(),
  battery_out: z.number(),
  grid_in: z.number(),
  grid_out: z.number(),
});

/** A bucket's money in the answer's currency; hours with energy but no import price are left out. */
export const periodMoney = z.object({
  import_cost: z.number(),
  export_revenue: z.number(),
  standing_charge: z.number(),
  /** import_cost - export_revenue + standing_charge */
  net_cost: z.number(),
  /** load at import prices - (import_cost - export_revenue); the standing charge left out */
  savings: z.number(),
  priced_hours: z.number(),
  unpriced_hours: z.number(),
});

/** One calendar period in the zone in force at its start; `energy: null` is "no data". */
export const energyBucket = z.object({
  from: zonedTime,
  to: zonedTime,
  time_zone: z.string(),
  energy: periodEnergy.nullable(),
  money: periodMoney.nullable(),
});

/** GET /api/v1/energy: energy and money per hour, day, month or year. */
export const energyResponse = z.object({
  period: z.enum(['hour', 'day', 'month', 'year']),
  currency: z.string().nullable(),
  buckets: z.array(energyBucket),
});
