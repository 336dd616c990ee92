import { z } from 'zod';
import { utcTime } from './common.js';

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

/** An API token as GET /api/v1/tokens lists it: never its secret. */
export const tokenInfo = z.object({
  id: z.string(),
  name: z.string(),
  /** What the token may do: read < write < admin. */
  scope: z.enum(['read', 'write', 'admin']),
  created_at: utcTime,
  expires_at: utcTime.nullable(),
});

export const tokensResponse = z.array(tokenInfo);

/** POST /api/v1/tokens: the only answer that shows the secret. */
export const createdToken = tokenInfo.extend({ token: z.string() });
