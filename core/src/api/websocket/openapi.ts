import { errorResponse } from '../../contract/common-schemas.js';
import type { Operation, Operations } from '../operation.js';

const stream: Operation = {
  summary: 'The live stream (WebSocket, Phoenix Channels): a plain HTTP request is told to upgrade',
  description:
    'Connect with a WebSocket client and `?password=` or `?token=`; join channel `metrics`. See docs/api.md, "WebSocket".',
  responses: { 426: errorResponse },
};

/** The stream's path answers every plain HTTP method with 426 (see upgradeRequiredRoutes). */
export const websocketOperations: Operations = {
  'GET /api/websocket': stream,
  'POST /api/websocket': stream,
  'PUT /api/websocket': stream,
  'PATCH /api/websocket': stream,
  'DELETE /api/websocket': stream,
};
