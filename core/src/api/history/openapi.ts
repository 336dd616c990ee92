import type { Operations } from '../operation.js';
import { historyQuery } from './route.js';
import { historyResponse } from '../../contract/history.js';

export const historyOperations: Operations = {
  'GET /api/v1/history': {
    summary: "One topic's recorded history in epoch-aligned buckets, 2000 per page",
    query: historyQuery,
    responses: { 200: historyResponse },
  },
};
