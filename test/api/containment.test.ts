// A plugin's stray exception or rejection fails that plugin alone: the real server process
// attributes it, restarts the plugin, and keeps serving and recording.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { eventually, MAIN, startChildServer, type ChildServer } from '../helpers/child-server.js';
import { within } from '../helpers/deadline.js';

interface Status {
  id: string;
  state: string;
  last_error: string | null;
  isolation: string;
}

async function statusOf(server: ChildServer, id: string): Promise<Status | undefined> {
  const res = await server.api('/api/v1/plugins');
  return ((await res.json()) as Status[]).find((p) => p.id === id);
}

test('an exception in a plugin timer and a rejection in its socket callback fail that plugin, which restarts; the service keeps recording', async (t) => {
  const device = createServer((socket) => socket.end('frame-1'));
  await new Promise<void>((resolve) => device.listen(0, '127.0.0.1', resolve));
  t.after(() => device.close());
  const port = (device.address() as { port: number }).port;

  const server = await startChildServer({
    fixtures: ['timer-throws', 'socket-rejects', 'ticker'],
    plugins: [
      { id: 'meter', plugin: 'ticker', devices: ['inverter_1'], config: { intervalMs: 20 } },
      { id: 'timer', plugin: 'timer-throws' },
      { id: 'socket', plugin: 'socket-rejects', config: { port } },
    ],
    config: { history: { flushIntervalMs: 500 } },
  });
  t.after(() => server.child.kill('SIGKILL'));

  for (const [id, error] of [
    ['timer', /^crashed: timer exploded; retrying in 1 s$/],
    ['socket', /^crashed: socket callback rejected on frame "frame-1"; retrying in 1 s$/],
  ] as const) {
    const failed = await eventually(async () => {
      const s = await statusOf(server, id);
      return s?.last_error ? s : undefined;
    }, `${id} to fail`);
    assert.match(failed.last_error!, error);
    assert.equal(failed.isolation, 'process-local', 'bundled plugins run in-process');
    const restarted = await eventually(async () => {
      const s = await statusOf(server, id);
      return s?.state === 'running' ? s : undefined;
    }, `${id} to run again`);
    assert.match(restarted.last_error!, error, 'the crash stays readable after the restart');
  }
  assert.equal((await statusOf(server, 'meter'))?.state, 'running', 'the neighbour is untouched');

  // Still recording after both crashes: the ticker's value keeps rising, and it reaches the disk.
  const read = async () => Number(await (await server.api('/api/v1/metrics?topic=inverter_1/pv_power&value=1')).text());
  const afterCrashes = await read();
  await eventually(async () => ((await read()) > afterCrashes ? true : undefined), 'pv_power to rise');
  assert.match(server.stderr(), /\[plugins\] timer \(timer-throws\): crashed: timer exploded/);

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0, server.stderr());
  const values = await exportedValues(server.dataDir);
  assert.ok(values.length > 0, 'history was written');
  assert.ok(
    Math.max(...values) > afterCrashes,
    `values recorded after the crashes are on disk (max ${Math.max(...values)}, ${afterCrashes} at the crash)`,
  );
});

test('a failure no plugin owns ends the process with 1, after the history not yet flushed is written', async (t) => {
  const server = await startChildServer({
    fixtures: ['ticker', 'unattributable'],
    plugins: [
      { id: 'meter', plugin: 'ticker', devices: ['inverter_1'], config: { intervalMs: 20 } },
      { id: 'bomb', plugin: 'unattributable', devices: ['inverter_2'] },
    ],
    // No timed flush during the test: only the flush at exit can save these readings.
    config: { history: { flushIntervalMs: 10_000 } },
  });
  t.after(() => server.child.kill('SIGKILL'));
  const reading = await eventually(async () => {
    const value = Number(await (await server.api('/api/v1/metrics?topic=inverter_1/pv_power&value=1')).text());
    return value > 0 ? value : undefined;
  }, 'a reading');
  // The process may end before it answers.
  await server
    .api('/api/v1/metrics', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topic: 'inverter_2/fail', value: 'now' }),
    })
    .catch(() => undefined);
  assert.equal(await server.exited, 1);
  assert.match(server.stderr(), /uncaughtException outside any plugin: SyntaxError/);
  const values = await exportedValues(server.dataDir);
  assert.ok(
    values.length > 0 && Math.max(...values) >= reading,
    `the readings up to the failure are on disk (max ${Math.max(...values)}, ${reading} before it)`,
  );
});

/**
 * The 10-s maxima of inverter_1/pv_power, as `heliograph history export` reads them from
 * disk; none when the topic never reached the disk (the export then refuses the topic).
 */
async function exportedValues(dataDir: string): Promise<number[]> {
  const exported = spawn(
    process.execPath,
    [
      MAIN,
      'history',
      'export',
      '--topic',
      'inverter_1/pv_power',
      '--group-by',
      '10s',
      '--agg',
      'max',
      '--data',
      dataDir,
    ],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  let csv = '';
  exported.stdout.on('data', (d) => (csv += d));
  const exit = new Promise((resolve) => exported.on('exit', resolve));
  if ((await within(exit, 'exit of `heliograph history export`', 60_000)) !== 0) return [];
  return csv
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => Number(line.split(',').at(-1)))
    .filter((value) => Number.isFinite(value));
}
