import type { Operations } from '../operation.js';
import { NO_QUERY } from '../query.js';
import { openApiDocument } from '../../contract/openapi.js';

export const openApiOperations: Operations = {
  'GET /api/v1/openapi.json': {
    summary: 'This document',
    query: NO_QUERY,
    responses: { 200: openApiDocument },
  },
};
