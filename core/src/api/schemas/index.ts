/*
 * `@heliograph/core/api-schemas`: the zod schemas of the API's answers, gathered from the
 * resource folders (each keeps its own in `<resource>/schemas.ts`). The handlers build their
 * answers by hand where that is faster (history, the metrics snapshot); tests parse real
 * answers with these schemas, ../../api-types.ts exports the inferred types for clients, and
 * ../openapi/document.ts makes each one a component of the OpenAPI document.
 */
export { errorCode, errorResponse, fieldErrorResponse, fieldIssue, metricValue, utcTime } from '../common-schemas.js';
export { metric, metricsResponse, writable, writeResponse } from '../metrics/schemas.js';
export { historyResponse } from '../history/schemas.js';
export { forecastResponse } from '../forecast/schemas.js';
export { gridResponse, importExportSlot, priceSlot } from '../grid/schemas.js';
export { energyBucket, energyResponse } from '../energy/schemas.js';
export {
  installedPlugin,
  installedPluginsResponse,
  pluginConfigResponse,
  pluginConfigValues,
  pluginsResponse,
  pluginStatus,
} from '../plugins/schemas.js';
export { auditEntry, auditResponse } from '../audit/schemas.js';
export { createdToken, tokenInfo, tokensResponse } from '../tokens/schemas.js';
export { setupStatus } from '../setup/schemas.js';
export { siteConfigResponse, siteSettings } from '../config/schemas.js';
export { systemResponse } from '../system/schemas.js';
export { openApiDocument } from '../openapi/schemas.js';
export { backupEntry, backupsResponse, backupSchedule, restoreStaged } from '../backups/schemas.js';
