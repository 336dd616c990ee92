/**
 * The REST API's answer types, inferred from the zod schemas of each resource's file in this
 * folder (gathered in schemas.ts). A types-only entry point (`@heliograph/core/api-types`):
 * `import type` from it costs a client nothing at runtime, and the types cannot drift from
 * what the tests check the server against.
 *
 * @example
 * import type { Metric, GridResponse } from '@heliograph/core/api-types';
 */
import type { z } from 'zod';
import type * as s from './schemas.js';

export type MetricValue = z.infer<typeof s.metricValue>;
export type Writable = z.infer<typeof s.writable>;
export type Metric = z.infer<typeof s.metric>;
export type MetricsResponse = z.infer<typeof s.metricsResponse>;
export type WriteResponse = z.infer<typeof s.writeResponse>;
export type HistoryResponse = z.infer<typeof s.historyResponse>;
export type ForecastResponse = z.infer<typeof s.forecastResponse>;
export type PriceSlot = z.infer<typeof s.priceSlot>;
export type ImportExportSlot = z.infer<typeof s.importExportSlot>;
export type GridResponse = z.infer<typeof s.gridResponse>;
export type EnergyBucket = z.infer<typeof s.energyBucket>;
export type EnergyResponse = z.infer<typeof s.energyResponse>;
export type PluginStatus = z.infer<typeof s.pluginStatus>;
/** What a plugin asks (or an owner approved) beyond its own devices: writes, prices, forecast, hosts. */
export type PluginGrants = NonNullable<PluginStatus['grants']>['requested'];
export type PluginsResponse = z.infer<typeof s.pluginsResponse>;
export type PluginConfigResponse = z.infer<typeof s.pluginConfigResponse>;
export type AuditEntry = z.infer<typeof s.auditEntry>;
export type AuditResponse = z.infer<typeof s.auditResponse>;
export type TokenInfo = z.infer<typeof s.tokenInfo>;
export type CreatedToken = z.infer<typeof s.createdToken>;
export type BackupEntry = z.infer<typeof s.backupEntry>;
export type BackupsResponse = z.infer<typeof s.backupsResponse>;
export type RestoreStaged = z.infer<typeof s.restoreStaged>;
export type ErrorResponse = z.infer<typeof s.errorResponse>;
/** The stable code of an error answer (docs/api.md lists each). */
export type ErrorCode = z.infer<typeof s.errorCode>;
/** GET /api/v1/plugins/installed: one installed plugin the settings page can add. */
export interface InstalledPlugin {
  plugin: string;
  kind: string;
  name: string;
  description: string;
  /** The config schema as JSON Schema; null when the plugin's code cannot be loaded. */
  schema: unknown;
  devices: { kinds: string[]; min: number; max: number | null } | null;
  /** What an instance will ask the owner to approve beyond its own devices; `{}` for none. */
  grants: PluginGrants;
  /** Shipped with Heliograph (its requests approved unless an instance's entry narrows them). */
  bundled: boolean;
  /** Why the plugin cannot be loaded, when it cannot. */
  error?: string;
}
