// startHeliograph builds its services in a container of its own; a caller replaces a
// registration (here the clock) instead of threading an argument through the core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '@heliograph/core/clock';
import { startTestServer } from '../helpers/server.js';

const T = Date.parse('2031-05-04T03:02:01Z');

test('a registered manual clock is the time every service reads', async () => {
  const server = await startTestServer({
    bundled: ['simulator'],
    plugins: [
      { id: 'sim', plugin: 'simulator', devices: ['inverter_1'], config: { demoForecast: false, demoPrices: false } },
    ],
    clock: new ManualClock(T),
  });
  const res = await server.api('/api/v1/tokens', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'clock-check' }),
  });
  assert.equal(res.status, 201);
  assert.equal(((await res.json()) as { created_at: string }).created_at, '2031-05-04T03:02:01Z');
});
