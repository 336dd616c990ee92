import type { Operations } from '../operation.js';
import { auditQuery } from './route.js';
import { auditResponse } from '../../contract/audit.js';

export const auditOperations: Operations = {
  'GET /api/v1/audit': {
    summary: 'Write attempts and setup changes, newest first',
    query: auditQuery,
    responses: { 200: auditResponse },
  },
};
