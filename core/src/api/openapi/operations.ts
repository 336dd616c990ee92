import { auditOperations } from '../audit/openapi.js';
import { backupsOperations } from '../backups/openapi.js';
import { configOperations } from '../config/openapi.js';
import { energyOperations } from '../energy/openapi.js';
import { forecastOperations } from '../forecast/openapi.js';
import { gridOperations } from '../grid/openapi.js';
import { historyOperations } from '../history/openapi.js';
import { metricsOperations } from '../metrics/openapi.js';
import type { Operations } from '../operation.js';
import { pluginsOperations } from '../plugins/openapi.js';
import { prometheusOperations } from '../prometheus/openapi.js';
import { setupOperations } from '../setup/openapi.js';
import { staticOperations } from '../static.js';
import { systemOperations } from '../system/openapi.js';
import { tokensOperations } from '../tokens/openapi.js';
import { websocketOperations } from '../websocket/openapi.js';
import { openApiOperations } from './openapi.js';

/**
 * Every route the app registers, gathered from each resource's own description (its
 * `openapi.ts`), keyed `METHOD path` as api/routes.ts lists them. The query and body schemas
 * are the handlers' own, the answers the resources' schemas, so the document cannot say
 * something the server does not check. A route missing here still appears in the document,
 * marked undescribed (and the OpenAPI test fails).
 */
export const OPERATIONS: Operations = {
  ...metricsOperations,
  ...historyOperations,
  ...forecastOperations,
  ...gridOperations,
  ...energyOperations,
  ...systemOperations,
  ...openApiOperations,
  ...pluginsOperations,
  ...configOperations,
  ...auditOperations,
  ...tokensOperations,
  ...backupsOperations,
  ...setupOperations,
  ...prometheusOperations,
  ...websocketOperations,
  ...staticOperations,
};
