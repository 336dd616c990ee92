import type { Operations } from '../operation.js';
import { systemQuery } from './route.js';
import { systemResponse } from '../../contract/system.js';

export const systemOperations: Operations = {
  'GET /api/v1/system': {
    summary: 'The unit’s system/* rows: site id, software version, CPU temperature, free storage, uptime',
    query: systemQuery,
    responses: { 200: systemResponse },
  },
};
