/*
 * What the driver tests read from a running server over HTTP: current values by topic,
 * one instance's status with its devices, and writes.
 */
import { eventually } from '../helpers/child-server.js';
import { jsonBody, type TestServer } from '../helpers/server.js';

export interface InstanceState {
  state: string;
  last_error: string | null;
  device_status: Array<{ id: string; available: boolean; reason: string | null }>;
}

/** Current values by topic, from GET /api/v1/metrics. */
export async function valuesOf(server: TestServer): Promise<Map<string, unknown>> {
  const metrics = (await (await server.api('/api/v1/metrics')).json()) as Array<{ topic: string; value: unknown }>;
  return new Map(metrics.map((m) => [m.topic, m.value]));
}

/** The instance `id` as GET /api/v1/plugins shows it. */
export async function instanceOf(server: TestServer, id: string): Promise<InstanceState> {
  const all = (await (await server.api('/api/v1/plugins')).json()) as Array<InstanceState & { id: string }>;
  const found = all.find((p) => p.id === id);
  if (!found) throw new Error(`no instance ${id}`);
  return found;
}

/** Waits until `check` holds for the current values, and returns them. */
export function valuesWhen(
  server: TestServer,
  check: (values: Map<string, unknown>) => boolean,
  what: string,
): Promise<Map<string, unknown>> {
  return eventually(async () => {
    const values = await valuesOf(server);
    return check(values) ? values : undefined;
  }, what);
}

/** Waits until `check` holds for the instance's status, and returns it. */
export function instanceWhen(
  server: TestServer,
  id: string,
  check: (instance: InstanceState) => boolean,
  what: string,
): Promise<InstanceState> {
  return eventually(async () => {
    const instance = await instanceOf(server, id);
    return check(instance) ? instance : undefined;
  }, what);
}

/** POST /api/v1/metrics: the HTTP status and the answer's message. */
export async function write(
  server: TestServer,
  topic: string,
  value: string,
): Promise<{ status: number; body: string }> {
  const response = await server.api('/api/v1/metrics', jsonBody({ topic, value }));
  return { status: response.status, body: await response.text() };
}
