import type { Operations } from '../operation.js';
import { gridQuery } from './route.js';
import { gridResponse } from '../../contract/grid.js';

export const gridOperations: Operations = {
  'GET /api/v1/grid': {
    summary: "The grid provider and today's price slots onwards, or the slots of a past or future range (from, to)",
    query: gridQuery,
    responses: { 200: gridResponse },
  },
};
