// The shapes of the API answers the page reads (spec/local-api.md, spec/decisions.md).

export type Writable = { options: string[] } | { min: number; max: number; step: number };

export interface Metric {
  topic: string;
  /** Device category: `inverters`, `batteries`, `totals`... */
  device?: string;
  /** 0-based index within the category; null for `totals`, `weather`... */
  number?: number | null;
  group: string;
  name: string;
  value: number | string | boolean | null;
  unit: string;
  writable?: Writable;
}

export interface PluginStatus {
  id: string;
  plugin: string;
  kind: string;
  devices: string[];
  state: 'starting' | 'running' | 'failed' | 'stopped';
  last_error: string | null;
  last_poll: string | null;
}

export interface PluginConfig {
  schema: unknown;
  config: Record<string, unknown>;
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

/**
 * The device a metric belongs to, as a label for grouping: `inverter_1/*` -> "Inverter 1",
 * `total/*` -> "Total". Built from the topic prefix: the API's `device` is a category
 * ("inverters") that every inverter shares, and clients build their labels themselves.
 */
export function deviceOf(metric: Metric): string {
  const prefix = metric.topic.split('/')[0]!;
  return prefix.replace(/_(\d+)$/, ' $1').replace(/^./, (c) => c.toUpperCase());
}
