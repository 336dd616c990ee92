import { fieldErrorResponse } from '../../contract/common-schemas.js';
import type { Operations } from '../operation.js';
import { createdToken } from '../../contract/tokens.js';
import { setupBody } from './route.js';
import { setupStatus } from '../../contract/setup.js';

export const setupOperations: Operations = {
  'GET /api/v1/setup': {
    summary: 'Whether the first password still has to be set',
    responses: { 200: setupStatus },
  },
  'POST /api/v1/setup': {
    summary: "Set the first password with the setup code from the service's log; answers with an admin token",
    body: setupBody,
    responses: { 201: createdToken, 400: fieldErrorResponse },
  },
};
