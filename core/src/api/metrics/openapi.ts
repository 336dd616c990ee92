import { text, type Operations } from '../operation.js';
import { snapshotQuery, writeBody } from './route.js';
import { metricsResponse, writeResponse } from '../../contract/metrics.js';

export const metricsOperations: Operations = {
  'GET /api/v1/metrics': {
    summary: 'Snapshot of current metric values, optionally filtered by a topic glob',
    query: snapshotQuery,
    responses: { 200: [metricsResponse, text('With value=1: the one matching metric’s bare value')] },
  },
  'POST /api/v1/metrics': {
    summary: 'Write a setting; answers once the device confirmed it',
    body: writeBody,
    responses: { 200: writeResponse },
  },
};
