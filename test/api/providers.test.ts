// A real price plugin configured beside the simulator outranks its demo prices, whichever
// starts first, so adding a provider to the embedded default does what a user expects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer({
  bundled: ['simulator', 'fixed'],
  plugins: [
    { id: 'sim', plugin: 'simulator', devices: ['inverter_1', 'battery_1'] },
    { id: 'tariff', plugin: 'fixed', config: { provider: 'Stadtwerke' } },
  ],
});

test('the grid shows the configured provider, not the simulator demo', async () => {
  const res = await server.api('/api/v1/grid');
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { provider: 'Stadtwerke', schedule_type: 'pricing', pricing: null });
});
