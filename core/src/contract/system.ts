import { z } from 'zod';
import { metric } from './metrics.js';

/** GET /api/v1/system: the unit's `system/*` rows, shaped like metric rows (device `system`). */
export const systemResponse = z.array(metric);
