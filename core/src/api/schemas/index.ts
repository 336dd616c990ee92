/*
 * zod schemas of the API's answers, one file per resource. The handlers build their answers
 * by hand where that is faster (history, the metrics snapshot); tests parse real answers
 * with these schemas, and ../../api-types.ts exports the inferred types for clients.
 */
export { errorResponse, metricValue, utcTime } from './common.js';
export { metric, metricsResponse, writable, writeResponse } from './metrics.js';
export { forecastResponse, historyResponse } from './series.js';
export { gridResponse, importExportSlot, priceSlot } from './grid.js';
export {
  installedPlugin,
  installedPluginsResponse,
  pluginConfigResponse,
  pluginConfigValues,
  pluginsResponse,
  pluginStatus,
} from './plugins.js';
export { auditEntry, auditResponse, createdToken, tokenInfo, tokensResponse } from './audit-tokens.js';
export { setupStatus, siteConfigResponse, siteSettings, systemResponse } from './site.js';
export { fieldErrorResponse, fieldIssue, openApiDocument } from './openapi.js';
