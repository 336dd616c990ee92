// A body nested thousands of levels deep once answered 500 and broke every later
// config PUT until a restart (saving plugins.json overflowed the stack). Bodies are refused
// before parsing, past a depth no request of this API needs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';

const deep = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

test('a deeply nested body is refused with 400, and later writes still work', async () => {
  const server = await startTestServer({
    bundled: ['simulator'],
    plugins: [
      { id: 'sim', plugin: 'simulator', devices: ['inverter_1'], config: { demoForecast: false, demoPrices: false } },
    ],
  });
  const put = (path: string, body: string) =>
    server.api(path, { method: 'PUT', headers: { 'content-type': 'application/json' }, body });
  for (const path of ['/api/v1/plugins/sim/config', '/api/v1/config']) {
    const res = await put(path, deep(5000));
    assert.equal(res.status, 400, path);
    assert.match(((await res.json()) as { error: string }).error, /nested more than 32 levels/);
  }
  const ok = await put('/api/v1/plugins/sim/config', JSON.stringify({ demoForecast: false, demoPrices: false }));
  assert.equal(ok.status, 200, 'the next config PUT is saved as usual');
});
