import { z } from 'zod';
import { utcTime } from './common-schemas.js';

/** One write attempt, refused ones included (GET /api/v1/audit, newest first). */
export const auditEntry = z.object({
  time: utcTime,
  who: z.string(),
  /** `rest`, `ws`, or the id of the plugin that wrote (`mqtt`, `planner`). */
  via: z.string(),
  topic: z.string(),
  old_value: z.unknown(),
  new_value: z.string(),
  result: z.enum(['ok', 'error']),
  message: z.string().nullable(),
});

export const auditResponse = z.array(auditEntry);
