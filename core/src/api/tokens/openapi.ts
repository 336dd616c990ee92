import type { Operations } from '../operation.js';
import { NO_QUERY } from '../query.js';
import { createTokenBody } from './route.js';
import { createdToken, tokensResponse } from '../../contract/tokens.js';

export const tokensOperations: Operations = {
  'POST /api/v1/tokens': {
    summary: 'Create an API token; the only answer that shows its secret',
    query: NO_QUERY,
    body: createTokenBody,
    responses: { 201: createdToken },
  },
  'GET /api/v1/tokens': {
    summary: 'Every API token, without secrets',
    query: NO_QUERY,
    responses: { 200: tokensResponse },
  },
  'DELETE /api/v1/tokens/:id': {
    summary: 'Revoke a token: it stops working at once, its sockets close',
    query: NO_QUERY,
    responses: { 204: null },
  },
};
