// The shapes of the API answers the page reads. Those the core has response schemas for
// are the core's own types (inferred from the zod schemas the server's answers are tested
// against, `@heliograph/core/api-types`), so the page cannot drift from the API; a
// type-only import, erased from the bundle.
import type * as api from '@heliograph/core/api-types';

export type Writable = api.Writable;
export type Value = api.MetricValue;
export type Metric = api.Metric;
/** A metric's description, from the snapshot or the WebSocket's `definition` event. */
export type Definition = Omit<api.Metric, 'value'>;
export type PluginStatus = api.PluginStatus;

export type InstalledPlugin = api.InstalledPlugin;

export interface SiteConfig {
  site: { name: string; timeZone: string | null; latitude: number; longitude: number; temperatureUnit: string };
  energy: { resetPeriod: string };
  /** `source` and `fallbacks`: absent from services from before the owner chose sources. */
  prices: {
    multiplier: number;
    offset: number;
    exportPrice?: number | null;
    source?: string | null;
    fallbacks?: string[];
  };
  forecast?: { source: string | null; fallbacks: string[] };
  /** Absent from services without alerts. */
  alerts?: { batteryBelowPercent: number | null; deviceUnavailableMinutes: number | null; writeRefused: boolean };
  schema?: unknown;
}

export type PluginConfig = api.PluginConfigResponse;
export type TokenInfo = api.TokenInfo;
export type CreatedToken = api.CreatedToken;
export type AuditEntry = api.AuditEntry;

export type Point = [string, number];

/** What the charts read of a history or forecast answer. */
export type Series = Pick<api.HistoryResponse, 'topic' | 'unit' | 'points' | 'next'>;

export type PriceSlot = api.PriceSlot | api.ImportExportSlot;
export type GridAnswer = api.GridResponse;
/** GET /api/v1/energy: energy and money per hour, day or month, each bucket as it was recorded. */
export type EnergyAnswer = api.EnergyResponse;

/**
 * The device a topic belongs to: its topic prefix (`inverter_1`, `battery_2`, `total`).
 * Grouping by prefix works with both the old `device` (a display name) and the new one (a
 * category shared by every inverter).
 */
export function deviceKey(topic: string): string {
  return topic.split('/')[0]!;
}

/** "inverter_2" → "Inverter 2", "total" → "Total". */
export function deviceTitle(key: string): string {
  const spaced = key.replace(/_/g, ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}
