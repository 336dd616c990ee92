import { z } from 'zod';

/** GET /api/v1/setup: whether the first password still has to be set. */
export const setupStatus = z.object({ needs_setup: z.boolean() });
