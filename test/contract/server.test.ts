// The plugin contract (plugin-contract.ts) against the server: the whole service in-process
// over HTTP, with a manual clock (a device goes stale after 30 s at least, too long to wait
// for in real time), each case on a server of its own.
import { ManualClock } from '@heliograph/core/clock';
import type { InstanceStatus } from '@heliograph/core/testing';
import { jsonBody, startTestServer, statusWhen, type TestServer } from '../helpers/server.js';
import { pluginContract, type ContractHost } from './plugin-contract.js';

const T0 = Date.parse('2026-06-01T10:00:00Z');

async function startServer(
  entry: Parameters<ContractHost['start']>[0],
): Promise<{ server: TestServer; clock: ManualClock }> {
  const clock = new ManualClock(T0);
  const server = await startTestServer({ fixtures: ['contract'], plugins: [{ plugin: 'contract', ...entry }], clock });
  return { server, clock };
}

async function statusOf(server: TestServer, id: string): Promise<InstanceStatus> {
  const list = (await (await server.api('/api/v1/plugins')).json()) as InstanceStatus[];
  const status = list.find((p) => p.id === id);
  if (!status) throw new Error(`GET /api/v1/plugins lists no instance ${id}`);
  return status;
}

const server: ContractHost = {
  async start(entry) {
    const { server, clock } = await startServer(entry);
    // Setup and the first (immediate) poll are over once the instance leaves "starting".
    await statusWhen(server, entry.id, (s) => s.state !== 'starting');
    return {
      async value(topic) {
        const res = await server.api(`/api/v1/metrics?topic=${encodeURIComponent(topic)}`);
        const rows = (await res.json()) as Array<{ value: unknown }>;
        return rows[0]?.value;
      },
      async write(topic, value) {
        const res = await server.api('/api/v1/metrics', jsonBody({ topic, value }));
        return res.status === 200 ? null : ((await res.json()) as { error: string }).error;
      },
      status: () => statusOf(server, entry.id),
      advance(ms) {
        clock.advance(ms);
        // The server checks every 5 s; a test does not wait for that.
        server.registry.checkStale();
        return Promise.resolve();
      },
    };
  },
  async failedStart(entry) {
    const { server } = await startServer(entry);
    return (await statusWhen(server, entry.id, (s) => s.state === 'failed')).last_error ?? 'no error';
  },
};

pluginContract('the server', server);
