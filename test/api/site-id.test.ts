// system/site_id is the unit's identity for Home Assistant: chosen at the first start, the
// same after every restart of the service on the same data directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';

async function siteIdOf(server: { api(path: string): Promise<Response> }): Promise<unknown> {
  const rows = (await (await server.api('/api/v1/system')).json()) as Array<{ topic: string; value: unknown }>;
  return rows.find((r) => r.topic === 'system/site_id')?.value;
}

test('site_id stays the same across a restart, and a new data directory gets a new one', async () => {
  const first = await startTestServer({ plugins: [] });
  const id = await siteIdOf(first);
  assert.ok(Number.isInteger(id) && (id as number) > 0, `site_id is a positive integer, got ${String(id)}`);
  await first.close();

  const again = await startTestServer({ plugins: [], dataDir: first.dataDir });
  assert.equal(await siteIdOf(again), id, 'the same unit after a restart');
  assert.equal(again.siteId, id);
  await again.close();

  const other = await startTestServer({ plugins: [] });
  assert.notEqual(await siteIdOf(other), id, 'another unit');
});
