/*
 * `@heliograph/core/api-schemas`: the zod schemas of the API's answers, gathered from the
 * resources' files beside this one (`<resource>.ts`). The handlers build their answers by hand
 * where that is faster (history, the metrics snapshot); tests parse real answers with these
 * schemas, types.ts exports the inferred types for clients, and ../api/openapi/document.ts
 * makes each one a component of the OpenAPI document.
 */
export { errorCode, errorResponse, fieldErrorResponse, fieldIssue, metricValue, utcTime } from './common-schemas.js';
export { metric, metricsResponse, writable, writeResponse } from './metrics.js';
export { historyResponse } from './history.js';
export { forecastResponse } from './forecast.js';
export { gridResponse, importExportSlot, priceSlot } from './grid.js';
export { energyBucket, energyResponse } from './energy.js';
export {
  installedPlugin,
  installedPluginsResponse,
  pluginConfigResponse,
  pluginConfigValues,
  pluginsResponse,
  pluginStatus,
} from './plugins.js';
export { auditEntry, auditResponse } from './audit.js';
export { createdToken, tokenInfo, tokensResponse } from './tokens.js';
export { setupStatus } from './setup.js';
export { siteConfigResponse, siteSettings } from './config.js';
export { systemResponse } from './system.js';
export { openApiDocument } from './openapi.js';
export { backupEntry, backupsResponse, backupSchedule, restoreStaged } from './backups.js';
