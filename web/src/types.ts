// The shapes of the API answers the page reads (spec/local-api.md, spec/decisions.md).

export type Writable = { options: string[] } | { min: number; max: number; step: number };

export interface Metric {
  topic: string;
  device?: string;
  number?: number;
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

/** The device a metric belongs to, for grouping: its display name, else its topic prefix. */
export function deviceOf(metric: Metric): string {
  return metric.device ?? metric.topic.split('/')[0]!;
}
