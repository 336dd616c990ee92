// Nothing acknowledged is lost when the process dies or the disk is busy: the real server
// as a child process, killed with SIGKILL right after a write was answered and past the
// totals' save interval; and a database held locked by another connection for longer than
// SQLite's busy timeout while a write waits.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import sqlite3 from 'sqlite3';
import { open } from 'sqlite';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { pollUntil } from '../helpers/deadline.js';
import { jsonBody, startTestServer } from '../helpers/server.js';

type Row = { topic: string; value: unknown };
type AuditRow = { topic: string; new_value: string; result: string; via: string };

const PLUGINS = [
  // Kilowatts, so that total/pv_energy (to the Wh) moves at nearly every tick.
  { id: 'tick', plugin: 'ticker', devices: ['inverter_1'], config: { intervalMs: 100, wattsPerTick: 5000 } },
  { id: 'inv', plugin: 'bridged', devices: ['inverter_2'] },
];

async function start(dir?: string): Promise<ChildServer> {
  return startChildServer({
    plugins: PLUGINS,
    fixtures: ['ticker', 'bridged'],
    // Totals and history are flushed on a timer of this period as well; the test runs past it.
    config: { history: { flushIntervalMs: 500 } },
    dir,
  });
}

async function pvEnergy(server: ChildServer): Promise<number> {
  const rows = (await (await server.api('/api/v1/metrics?topic=total/pv_energy')).json()) as Row[];
  return Number(rows[0]?.value ?? 0);
}

/**
 * Reads total/pv_energy until it has moved `times` times (ticks integrated, saves queued),
 * every 20 ms: the ticker moves it about every 100 ms, and asking without a pause only burns
 * the CPU both processes need.
 */
async function afterMoves(server: ChildServer, times: number): Promise<number> {
  let last = await pvEnergy(server);
  let moved = 0;
  await pollUntil(
    async () => {
      const now = await pvEnergy(server);
      if (now !== last) moved++;
      last = now;
      return { done: moved >= times, seen: last };
    },
    `total/pv_energy moving ${times} times`,
    { everyMs: 20 },
  );
  return last;
}

test('kill -9 right after a write is answered: the audit has it and the energy totals do not step back', async () => {
  let server = await start();
  const { dir } = server;
  after(() => server.child.kill('SIGKILL'));
  const written: string[] = [];
  for (let round = 0; round < 4; round++) {
    // At most one move per 100 ms tick: eight span the 500 ms flush timer.
    const seen = await afterMoves(server, 8);
    assert.ok(seen > 0, 'the totals count energy');
    const value = String(10 * (round + 2));
    const res = await server.api('/api/v1/metrics', jsonBody({ topic: 'inverter_2/max_charge_current', value }));
    // Killed the moment the answer is in: no flush, no close, no timer gets another turn.
    server.child.kill('SIGKILL');
    assert.equal(res.status, 200);
    written.push(value);
    await server.exited;

    server = await start(dir);
    const restarted = await pvEnergy(server);
    assert.ok(restarted >= seen, `round ${round}: total/pv_energy ${restarted} after the restart, ${seen} seen before`);
    const audit = (await (await server.api('/api/v1/audit?limit=100')).json()) as AuditRow[];
    const writes = audit
      .filter((a) => a.topic === 'inverter_2/max_charge_current' && a.result === 'ok')
      .map((a) => a.new_value)
      .reverse();
    assert.deepEqual(writes, written, `round ${round}: every acknowledged write is in the audit`);
  }
});

test('a database locked by another process past the busy timeout: the write waits, the status says why, nothing is dropped', async () => {
  const server = await startTestServer({
    plugins: [{ id: 'inv', plugin: 'bridged', devices: ['inverter_1'] }],
    fixtures: ['bridged'],
  });
  after(() => server.close());
  const other = await open({ filename: join(server.dataDir, 'heliograph.db'), driver: sqlite3.Database });
  after(() => other.close());
  await other.exec('BEGIN IMMEDIATE');
  const answered = server.api('/api/v1/metrics', jsonBody({ topic: 'inverter_1/max_charge_current', value: '90' }));
  let settled = false;
  void answered.then(() => (settled = true));
  // The first attempt waits out SQLite's 5 s busy timeout; then the status names the wait.
  await pollUntil(
    async () => {
      const plugins = (await (await server.api('/api/v1/plugins')).json()) as Array<{ id: string; last_error: string }>;
      const lastError = plugins.find((p) => p.id === 'history')?.last_error ?? '';
      return { done: /audit entries wait|locked/.test(lastError), seen: lastError };
    },
    'the history row reporting the waiting write',
    { ms: 30_000, everyMs: 50 },
  );
  assert.equal(settled, false, 'the write is not acknowledged while its audit entry cannot be written');
  await other.exec('COMMIT');
  const res = await answered;
  assert.equal(res.status, 200);
  const audit = (await (await server.api('/api/v1/audit?limit=5')).json()) as AuditRow[];
  assert.ok(audit.some((a) => a.topic === 'inverter_1/max_charge_current' && a.new_value === '90'));
  const plugins = (await (await server.api('/api/v1/plugins')).json()) as Array<{
    id: string;
    last_error: string | null;
  }>;
  assert.equal(plugins.find((p) => p.id === 'history')?.last_error, null, 'the trouble clears once written');
});
