// Reconfiguring the working price plugin restarts it, so it declares itself again
// behind a second provider that has no slots; /grid must keep showing the one with slots.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';

test('after reconfiguring the working price plugin, /grid shows it, not an empty standby', async () => {
  const server = await startTestServer({
    fixtures: ['day-prices'],
    plugins: [
      { id: 'working', plugin: 'day-prices', config: { provider: 'Working' } },
      { id: 'empty', plugin: 'day-prices', config: { provider: 'Empty', publish: false } },
    ],
  });
  const grid = async () =>
    (await (await server.api('/api/v1/grid')).json()) as { provider: string; pricing: { slots: unknown[] } | null };
  assert.equal((await grid()).provider, 'Working');

  const res = await server.api('/api/v1/plugins/working/config', {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'Working', price: 0.25 }),
  });
  assert.equal(res.status, 200, await res.text());
  const after = await grid();
  assert.equal(after.provider, 'Working');
  assert.equal(after.pricing?.slots.length, 24);
});
