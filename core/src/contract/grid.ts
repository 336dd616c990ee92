import { z } from 'zod';
import { utcTime } from './common-schemas.js';

/** A slot of a `pricing` schedule: rank 1 is the day's cheapest; premium is price minus the day's mean. */
export const priceSlot = z.object({
  from: utcTime,
  to: utcTime,
  price: z.number(),
  rank: z.number().int(),
  premium: z.number(),
});

/** A slot of an `import_export_pricing` schedule; export fields are null where no export price covers it. */
export const importExportSlot = z.object({
  from: utcTime,
  to: utcTime,
  import_price: z.number(),
  import_rank: z.number().int(),
  import_premium: z.number(),
  export_price: z.number().nullable(),
  export_rank: z.number().int().nullable(),
  export_premium: z.number().nullable(),
});

/**
 * The standing charge (daily fixed charge) of one local day: the current one, or for a range
 * the day `from` falls in. Not adjusted by the multiplier and offset.
 */
export const standingCharge = z.object({
  currency: z.string(),
  per_day: z.number(),
});

/**
 * Whether the active provider's prices can be trusted: `failed` while its plugin fails (the
 * reason in `message`, as GET /api/v1/plugins' last_error), `stale` when its prices end
 * within the hour (`message` says when), else `ok`. `last_data`: its last publish.
 */
export const priceStatus = z.object({
  state: z.enum(['ok', 'failed', 'stale']),
  message: z.string().nullable(),
  last_data: utcTime.nullable(),
});

/**
 * GET /api/v1/grid: the active price provider's schedule, or `pricing: null`. `standing_charge`
 * only when the provider publishes a standing charge (null on a day none covers).
 */
export const gridResponse = z.object({
  provider: z.string(),
  /**
   * The plugin instance whose prices these are (GET /api/v1/plugins' id, its `source_role`
   * `active`); absent with `pricing: null`. Slots it lacks may come from the owner's fallbacks.
   */
  source: z.string().optional(),
  schedule_type: z.enum(['pricing', 'import_export_pricing']),
  pricing: z
    .object({
      currency: z.string(),
      unit: z.string(),
      slots: z.array(z.union([priceSlot, importExportSlot])),
    })
    .nullable(),
  standing_charge: standingCharge.nullable().optional(),
  status: priceStatus.optional(),
});
