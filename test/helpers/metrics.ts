/*
 * Reading a running server's metrics and plugin list over HTTP, for tests that wait for a
 * driver to publish.
 */
import { eventually } from './child-server.js';
import type { TestServer } from './server.js';

/** One row of `GET /api/v1/metrics`. */
export interface MetricRow {
  topic: string;
  value: number | string | boolean | null;
  writable?: { options?: string[]; min?: number; max?: number };
}

/** Rows of `GET /api/v1/metrics?topic=<glob>`, by topic. */
export async function metricsOf(server: TestServer, glob: string): Promise<Map<string, MetricRow>> {
  const res = await server.api(`/api/v1/metrics?topic=${encodeURIComponent(glob)}`);
  if (res.status !== 200) throw new Error(`GET /api/v1/metrics: ${res.status} ${await res.text()}`);
  return new Map(((await res.json()) as MetricRow[]).map((row) => [row.topic, row]));
}

/**
 * The values of the topics matching `glob` once `predicate` holds for them (asked every
 * 20 ms, up to 10 s).
 *
 * @example
 * const values = await valuesWhen(server, 'inverter_1/*', (v) => v.get('inverter_1/pv_power') !== null);
 */
export function valuesWhen(
  server: TestServer,
  glob: string,
  predicate: (values: Map<string, MetricRow['value']>) => boolean,
  what = `values of ${glob}`,
): Promise<Map<string, MetricRow['value']>> {
  return eventually(async () => {
    const rows = await metricsOf(server, glob);
    const values = new Map([...rows].map(([topic, row]) => [topic, row.value]));
    return predicate(values) ? values : undefined;
  }, what);
}

/** One device of an instance in `GET /api/v1/plugins`. */
export interface DeviceRow {
  id: string;
  available: boolean;
  reason: string | null;
  identity: Record<string, string>;
}

/** Instance `id` as `GET /api/v1/plugins` lists it now. */
export async function instanceOf(
  server: TestServer,
  id: string,
): Promise<{ id: string; state: string; last_error: string | null; device_status: DeviceRow[] }> {
  const list = (await (await server.api('/api/v1/plugins')).json()) as Array<Awaited<ReturnType<typeof instanceOf>>>;
  const instance = list.find((p) => p.id === id);
  if (!instance) throw new Error(`no instance ${id} in GET /api/v1/plugins`);
  return instance;
}

/** The device status rows of instance `id` in `GET /api/v1/plugins` (`device_status`). */
export async function devicesOf(server: TestServer, id: string): Promise<DeviceRow[]> {
  return (await instanceOf(server, id)).device_status;
}

/** Writes a setting over REST: the status and the answer's message or result. */
export async function writeSetting(
  server: TestServer,
  topic: string,
  value: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await server.api('/api/v1/metrics', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ topic, value }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
