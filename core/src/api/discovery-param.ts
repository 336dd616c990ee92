import { z } from 'zod';

/**
 * The `discovery` query flag of GET /api/v1/metrics and GET /api/v1/system: present (bare
 * `?discovery`, or `=1`/`=true`) adds the discovery fields to every row; `=0`/`=false` or
 * absent leaves them out.
 */
export const discoveryParam = z
  .enum(['', '1', 'true', '0', 'false'], {
    error: 'discovery takes no value, or 1/true to add the discovery fields, 0/false to leave them out',
  })
  .optional()
  .transform((value) => value !== undefined && value !== '0' && value !== 'false');
