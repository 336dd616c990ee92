// Every API route needs credentials whatever the spelling of its path: the router matches
// paths case-insensitively, so the gate must not be a case-sensitive prefix check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basicAuth, startTestServer } from '../helpers/server.js';

const paths = [
  '/api/v1/metrics',
  '/api/v1/tokens',
  '/api/v1/plugins',
  '/api/v1/audit',
  '/api/v1/history?topic=total/pv_power',
  '/api/v1/grid',
];
const spellings = (path: string) => [
  path,
  path.toUpperCase(),
  path.replace('/api/v1', '/API/V1'),
  path.replace('/api/v1', '/Api/V1'),
  path.replace(/(\?|$)/, '/$1'),
];

test('no spelling of an API path answers without the password', async () => {
  const server = await startTestServer({
    bundled: ['simulator'],
    plugins: [
      { id: 'sim', plugin: 'simulator', devices: ['inverter_1'], config: { demoForecast: false, demoPrices: false } },
    ],
  });
  for (const path of paths) {
    for (const variant of spellings(path)) {
      for (const auth of [null, basicAuth('wrong password')]) {
        const res = await server.api(variant, { auth });
        assert.ok(
          res.status === 401 || res.status === 429,
          `${variant} with ${auth ?? 'no credentials'} answered ${res.status}`,
        );
      }
    }
  }
});

test('before a password exists no spelling of an API path answers 200', async () => {
  const server = await startTestServer({ password: null, plugins: [] });
  for (const path of paths) {
    for (const variant of spellings(path)) {
      const res = await server.api(variant, { auth: null });
      assert.equal(res.status, 403, `${variant} answered ${res.status}`);
    }
  }
});
