// A damaged database never stops the service. The live API keeps answering, the
// bad file is moved aside (never deleted) and the `history` entry of /plugins says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { historyMigrations, migrate, openDatabase } from '@heliograph/core/testing';
import { instanceOf } from '../helpers/metrics.js';
import { startTestServer } from '../helpers/server.js';

const SIM = {
  id: 'sim',
  plugin: 'simulator',
  devices: ['inverter_1', 'battery_1'],
  config: { backfill_days: 0, demoForecast: false, demoPrices: false },
};

test('a file that is not a database is moved aside with a timestamped name and the service starts on a new one', async () => {
  const garbage = randomBytes(64 * 1024);
  const server = await startTestServer({
    bundled: ['simulator'],
    plugins: [SIM],
    prepare: (dir) => writeFileSync(join(dir, 'heliograph.db'), garbage),
  });
  const aside = readdirSync(server.dataDir).filter((f) =>
    /^heliograph\.db\.damaged-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$/.test(f),
  );
  assert.equal(aside.length, 1, `moved aside: ${readdirSync(server.dataDir).join(', ')}`);
  assert.deepEqual(readFileSync(join(server.dataDir, aside[0]!)), garbage, 'the damaged file is kept byte for byte');
  const metrics = await server.api('/api/v1/metrics?topic=inverter_1/*');
  assert.equal(metrics.status, 200);
  const history = await server.api('/api/v1/history?topic=inverter_1/pv_power');
  assert.equal(history.status, 200, 'history starts afresh');
  const status = await instanceOf(server, 'history');
  assert.equal(status.state, 'running');
  assert.match(String(status.last_error), /moved to .*heliograph\.db\.damaged-/);
});

test('when history cannot be opened the service runs without it: live values and writes work, history answers 503', async () => {
  const server = await startTestServer({
    bundled: ['simulator'],
    plugins: [SIM],
    prepare: async (dir) => {
      // Another live process of this host holds history (the test runner itself).
      const db = await openDatabase(join(dir, 'heliograph.db'));
      await migrate(db, historyMigrations);
      await db.run('INSERT INTO history_owner VALUES (1, ?, ?, ?)', process.ppid, hostname(), Date.now());
      await db.close();
    },
  });
  const metrics = await server.api('/api/v1/metrics?topic=inverter_1/*');
  assert.equal(metrics.status, 200);
  const history = await server.api('/api/v1/history?topic=inverter_1/pv_power');
  assert.equal(history.status, 503);
  const refusal = (await history.json()) as { error: string; code: string };
  assert.match(refusal.error, /history is unavailable: history is being written by process \d+/);
  assert.equal(refusal.code, 'HISTORY_UNAVAILABLE');
  const write = await server.api('/api/v1/metrics', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ topic: 'inverter_1/output_source_priority', value: 'Utility first' }),
  });
  assert.equal(write.status, 200, await write.clone().text());
  const status = await instanceOf(server, 'history');
  assert.equal(status.state, 'failed');
  assert.match(String(status.last_error), /history is off/);
});
