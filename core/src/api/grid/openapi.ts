import type { Operations } from '../operation.js';
import { NO_QUERY } from '../query.js';
import { gridResponse } from './schemas.js';

export const gridOperations: Operations = {
  'GET /api/v1/grid': {
    summary: "The grid provider and today's price slots onwards",
    query: NO_QUERY,
    responses: { 200: gridResponse },
  },
};
