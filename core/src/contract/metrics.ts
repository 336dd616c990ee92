import { z } from 'zod';
import { metricValue } from './common-schemas.js';

/** How a setting may be written: one of its options, or a number in a range on a step. */
export const writable = z.union([
  z.object({ options: z.array(z.string()).readonly() }),
  z.object({ min: z.number(), max: z.number(), step: z.number() }),
]);

/**
 * The Home Assistant discovery fields (docs/api.md, "Discovery fields"):
 * on every row of `?discovery` and every WebSocket definition; null where one does not apply.
 */
export const discoveryFields = z.object({
  platform: z.enum(['sensor', 'binary_sensor', 'number', 'select', 'switch']),
  device_class: z.string().nullable(),
  state_class: z.enum(['measurement', 'total', 'total_increasing']).nullable(),
  unit_of_measurement: z.string().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  step: z.number().nullable(),
  options: z.array(z.string()).nullable(),
  payload_on: z.string().nullable(),
  payload_off: z.string().nullable(),
});

/** One topic as GET /api/v1/metrics lists it; the discovery fields with `?discovery`. */
export const metric = z.object({
  topic: z.string(),
  /** The clients' category: `inverters`, `batteries`, `totals`, `grid`, `weather`, `system`. */
  device: z.string(),
  /** 0-based index of the numbered device (`inverter_1` has 0); null for the others. */
  number: z.number().int().nullable(),
  group: z.string(),
  name: z.string(),
  value: metricValue,
  unit: z.string(),
  writable: writable.optional(),
  ...discoveryFields.partial().shape,
});

/** GET /api/v1/metrics[?topic=glob]: topics in topic order. */
export const metricsResponse = z.array(metric);

/** POST /api/v1/metrics after the device confirmed the write. */
export const writeResponse = z.object({ topic: z.string(), result: z.literal('ok') });
