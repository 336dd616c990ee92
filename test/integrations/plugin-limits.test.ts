// The bounds of a third-party plugin's process besides its sandbox: a job that never settles
// is reported by name and the process restarted, while its other jobs, reads and writes go
// on; the start-up watchdog counts the process's CPU, so a setup kept waiting (a loaded
// machine) passes and a busy loop does not; `isolation` is a field of POST /api/v1/plugins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pollUntil } from '../helpers/deadline.js';
import { jsonBody, startTestServer, statusWhen, type TestServer } from '../helpers/server.js';

const HANG_TIMEOUT_MS = 5000;

const read = async (server: TestServer, topic: string) => {
  const res = await server.api(`/api/v1/metrics?topic=${topic}&value=1`);
  return res.status === 200 ? Number(await res.text()) : NaN;
};

test('a hung job is reported by name and its process restarted, while its other jobs and writes go on', async () => {
  const server = await startTestServer({
    external: ['hung-job'],
    plugins: [{ id: 'hung', plugin: 'hung-job', devices: ['hung_1'], config: { timeoutMs: HANG_TIMEOUT_MS } }],
  });
  let firstPid = NaN;
  await pollUntil(async () => {
    firstPid = await read(server, 'hung_1/pid');
    return { done: firstPid > 0, seen: firstPid };
  }, 'the first process publishes its pid');
  // While `hang` waits for its timeout, `tick` keeps reading the site and publishing.
  let ticks = 0;
  await pollUntil(
    async () => {
      ticks = await read(server, 'hung_1/ticks');
      return { done: ticks >= 3, seen: ticks };
    },
    'tick running beside the hung job',
    { ms: HANG_TIMEOUT_MS },
  );
  const write = await server.api('/api/v1/metrics', jsonBody({ topic: 'hung_1/level', value: '50' }));
  assert.equal(write.status, 200, await write.text());
  const status = await statusWhen(server, 'hung', (s) => /JOB_TIMEOUT/.test(s.last_error ?? ''), {
    what: 'the hung job reported',
    timeoutMs: HANG_TIMEOUT_MS + 10_000,
  });
  assert.match(
    status.last_error!,
    /^job hang did not finish within 5 s \(JOB_TIMEOUT\); the plugin is restarted; retrying in \d+ s$/,
  );
  await pollUntil(
    async () => {
      const pid = await read(server, 'hung_1/pid');
      return { done: pid > 0 && pid !== firstPid, seen: pid };
    },
    'a new process publishing its pid',
    { ms: 15_000 },
  );
});

test("the start-up watchdog counts the process's CPU: a setup kept waiting passes, a busy loop is ended", async () => {
  const server = await startTestServer({
    external: ['slow-setup'],
    plugins: [
      { id: 'waiting', plugin: 'slow-setup', config: { mode: 'wait', ms: 12_000 } },
      { id: 'spinning', plugin: 'slow-setup', config: { mode: 'spin', ms: 30_000 } },
    ],
  });
  const [waiting, spinning] = await Promise.all([
    // Deadlines for a loaded machine: the spin needs 10 s of CPU, however long that takes.
    statusWhen(server, 'waiting', (s) => s.state === 'running', { what: 'running', timeoutMs: 90_000 }),
    statusWhen(server, 'spinning', (s) => s.state === 'failed', { what: 'failed', timeoutMs: 90_000 }),
  ]);
  assert.equal(waiting.last_error, null);
  assert.match(
    spinning.last_error!,
    /^setup failed: its worker did not answer for \d+ ms \(a busy loop\?\) and was terminated; retrying in \d+ s$/,
  );
  await server.api('/api/v1/plugins/spinning', { method: 'PATCH', ...jsonBody({ enabled: false }) });
});

test('POST /api/v1/plugins takes `isolation`; a third-party plugin is never run in-process', async () => {
  const server = await startTestServer({ external: ['hung-job'], plugins: [] });
  const add = (body: Record<string, unknown>) =>
    server.api(
      '/api/v1/plugins',
      jsonBody({ plugin: 'hung-job', devices: ['hung_1'], config: { timeoutMs: 60_000 }, enabled: false, ...body }),
    );
  const ok = await add({ id: 'p', isolation: 'process' });
  assert.equal(ok.status, 201, await ok.clone().text());
  assert.equal(((await ok.json()) as { isolation: string }).isolation, 'worker');
  await server.api('/api/v1/plugins/p', { method: 'DELETE' });
  const local = await add({ id: 'q', isolation: 'process-local' });
  assert.equal(local.status, 400);
  const body = (await local.json()) as { issues: Array<{ path: unknown[]; message: string }> };
  assert.deepEqual(body.issues[0]?.path, ['isolation']);
  assert.match(body.issues[0]?.message ?? '', /always runs sandboxed in a process of its own/);
  const bad = await add({ id: 'r', isolation: 'thread' });
  assert.equal(bad.status, 400);
});

test("an instance's quotas come from its plugins.json entry", async () => {
  const server = await startTestServer({
    external: ['store-flood'],
    plugins: [
      {
        id: 'small',
        plugin: 'store-flood',
        devices: ['flood_1'],
        // Room for one 1500-byte value of its two keys, not both.
        config: { valueBytes: 1500, keys: 2, concurrency: 1 },
        quotas: { storeMaxBytes: 2048 },
      },
    ],
  });
  let seen = { written: NaN, refused: NaN };
  await pollUntil(async () => {
    seen = { written: await read(server, 'flood_1/written'), refused: await read(server, 'flood_1/refused') };
    return { done: seen.written > 0 && seen.refused > 0, seen };
  }, 'writes of the first key taken and of the second refused');
});
