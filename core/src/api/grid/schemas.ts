import { z } from 'zod';
import { utcTime } from '../common-schemas.js';

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

/** GET /api/v1/grid: the active price provider's schedule, or `pricing: null`. */
export const gridResponse = z.object({
  provider: z.string(),
  schedule_type: z.enum(['pricing', 'import_export_pricing']),
  pricing: z
    .object({
      currency: z.string(),
      unit: z.string(),
      slots: z.array(z.union([priceSlot, importExportSlot])),
    })
    .nullable(),
});
