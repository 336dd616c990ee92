// The shapes of the API answers the page reads (spec/local-api.md, spec/decisions.md,
// docs/api.md). The lead switches these to the core's exported response types at merge.

export type Writable = { options: string[] } | { min: number; max: number; step: number };
export type Value = number | string | boolean | null;

/** A metric's description, from the snapshot or the WebSocket's `definition` event. */
export interface Definition {
  topic: string;
  /** A display name ("Inverter 1") or, in the newer shape, a category ("inverters"). */
  device?: string | null;
  number?: number | null;
  group: string;
  name: string;
  unit: string;
  writable?: Writable;
  /** Newer `definition` fields, read where present. */
  device_class?: string;
  min?: number;
  max?: number;
  options?: string[];
}

export interface Metric extends Definition {
  value: Value;
}

export interface PluginStatus {
  id: string;
  plugin: string;
  kind: string;
  devices: string[];
  /** Absent before the web-server branch; treated as true. */
  enabled?: boolean;
  state: 'starting' | 'running' | 'failed' | 'stopped';
  last_error: string | null;
  last_poll: string | null;
}

export interface InstalledPlugin {
  plugin: string;
  kind: string;
  name: string;
  description: string;
  schema: unknown;
  devices: { kinds: string[]; min: number; max: number | null } | null;
}

export interface PluginConfig {
  schema: unknown;
  config: Record<string, unknown>;
  /** Which secret (write-only) fields have a stored value. */
  secrets?: Record<string, boolean>;
}

export interface SiteConfig {
  site: { name: string; timeZone: string | null; latitude: number; longitude: number; temperatureUnit: string };
  energy: { resetPeriod: string };
  prices: { multiplier: number; offset: number };
  schema?: unknown;
}

export interface TokenInfo {
  id: string;
  name: string;
  created_at: string;
  expires_at: string | null;
}

export interface CreatedToken extends TokenInfo {
  token: string;
}

export interface AuditEntry {
  time: string;
  who: string;
  via: 'rest' | 'ws';
  topic: string;
  old_value: unknown;
  new_value: string;
  result: 'ok' | 'error';
  message: string | null;
}

export type Point = [string, number];

export interface Series {
  topic: string;
  unit: string;
  points: Point[];
  next?: string;
}

export interface PriceSlot {
  from: string;
  to: string;
  price?: number;
  rank?: number;
  import_price?: number;
  import_rank?: number;
}

export interface GridAnswer {
  provider: string;
  schedule_type: string;
  pricing: { currency: string; unit: string; slots: PriceSlot[] } | null;
}

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
