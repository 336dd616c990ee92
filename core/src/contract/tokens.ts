import { z } from 'zod';
import { utcTime } from './common-schemas.js';

/** An API token as GET /api/v1/tokens lists it: never its secret. */
export const tokenInfo = z.object({
  id: z.string(),
  name: z.string(),
  /** What the token may do: read < write < admin. */
  scope: z.enum(['read', 'write', 'admin']),
  created_at: utcTime,
  expires_at: utcTime.nullable(),
  /** Stops working after auth.idleTokenDays without a request (a sign-in's token). */
  idle_expiry: z.boolean(),
});

export const tokensResponse = z.array(tokenInfo);

/** POST /api/v1/tokens: the only answer that shows the secret. */
export const createdToken = tokenInfo.extend({ token: z.string() });
