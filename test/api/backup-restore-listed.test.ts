// A restore of a listed backup (POST /api/v1/backups/{name}/restore) over real HTTP and a real
// SQLite file: the upload's checks and staging with a file of the list. A damaged one is
// refused in words naming it, with nothing changed; a good one is staged, audited and, after
// a restart on the same data directory, the data is the backup's again. An unknown name
// answers 404, a second restore while one is staged 409.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BackupsResponse, RestoreStaged } from '@heliograph/core/api-types';
import { within } from '../helpers/deadline.js';
import { jsonBody, startTestServer, type TestServer } from '../helpers/server.js';

const tokenNames = async (s: TestServer) =>
  ((await (await s.api('/api/v1/tokens')).json()) as Array<{ name: string }>).map((t) => t.name).sort();
const restore = (s: TestServer, name: string) =>
  s.api(`/api/v1/backups/${encodeURIComponent(name)}/restore`, { method: 'POST' });
const errorOf = async (res: Response) => (await res.json()) as { error: string; code: string };

test('a listed backup is restored with the upload’s checks: refused in words, or staged and in place after the restart', async () => {
  const server = await startTestServer({ plugins: [] });
  await server.api('/api/v1/tokens', jsonBody({ name: 'before', scope: 'read' }));
  const made = await server.api('/api/v1/backups', { method: 'POST' });
  assert.equal(made.status, 201);
  const { name } = (await made.json()) as { name: string };
  const file = join(server.dataDir, 'backups', name);
  const bytes = readFileSync(file);
  await server.api('/api/v1/tokens', jsonBody({ name: 'after', scope: 'read' }));
  assert.deepEqual(await tokenNames(server), ['after', 'before']);

  // A listed file cut short (an interrupted copy into the folder): refused, nothing staged.
  const cut = 'heliograph-2026-01-01T00-00-00Z-manual.backup';
  writeFileSync(join(server.dataDir, 'backups', cut), bytes.subarray(0, Math.floor(bytes.length / 2)));
  const refused = await restore(server, cut);
  const refusal = await errorOf(refused);
  assert.equal(refused.status, 422, refusal.error);
  assert.equal(refusal.code, 'RESTORE_REFUSED');
  assert.match(refusal.error, new RegExp(`^the backup ${cut}: the backup is cut short .*nothing was restored$`));
  assert.doesNotMatch(refusal.error, /\//, 'the words name the backup, not a path on the device');
  assert.ok(!existsSync(join(server.dataDir, 'restore-pending.backup')), 'nothing staged');

  for (const unknown of ['heliograph-x.backup', '..%2Fheliograph.db']) {
    const res = await restore(server, unknown);
    assert.equal(res.status, 404, unknown);
    assert.equal((await errorOf(res)).code, 'BACKUP_NOT_FOUND', unknown);
  }

  const staged = await restore(server, name);
  assert.equal(staged.status, 202, await staged.clone().text());
  const answer = (await staged.json()) as RestoreStaged;
  assert.equal(answer.restarting, true);
  assert.match(
    answer.message,
    new RegExp(`^the backup ${name} made \\S+ by version \\S+ passed the checks; the service restarts now`),
  );
  assert.deepEqual(answer.stripped, []);
  assert.equal(
    await within(server.restartRequested, 'the restart the staged restore asks for'),
    'a restore was staged from the API',
  );
  assert.deepEqual(readFileSync(join(server.dataDir, 'restore-pending.backup')), bytes, 'the listed file, staged');
  assert.deepEqual(readFileSync(file), bytes, 'the listed backup itself is left as it is');
  const audit = (await (await server.api('/api/v1/audit?limit=50')).json()) as Array<{
    topic: string;
    old_value: string;
    new_value: string;
  }>;
  const entry = audit.find((e) => e.topic === 'backups/restore');
  assert.equal(entry?.old_value, '');
  assert.match(
    entry?.new_value ?? '',
    new RegExp(`^staged from ${name}, made ${answer.created} by ${answer.version}$`),
  );

  for (const again of [name, cut]) {
    const res = await restore(server, again);
    assert.equal(res.status, 409, `one restore at a time (${again})`);
    assert.match((await errorOf(res)).error, /already under way/);
  }

  await server.close();
  const restarted = await startTestServer({ plugins: [], dataDir: server.dataDir });
  const { restored, backups } = (await (await restarted.api('/api/v1/backups')).json()) as BackupsResponse;
  assert.equal(restored?.error, null);
  assert.equal(restored?.created, answer.created);
  assert.ok(!existsSync(join(server.dataDir, 'restore-pending.backup')), 'applied and removed');
  assert.deepEqual(await tokenNames(restarted), ['before'], 'the data is the backup’s again');
  assert.ok(
    readdirSync(server.dataDir).some((n) => /^heliograph\.db\.before-restore-/.test(n)),
    'the database that was there is kept aside',
  );
  assert.ok(
    backups.some((b) => b.name === name),
    'the restored backup is still in the list',
  );
});
