import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestHost } from '@heliograph/plugins-sdk/testing';
import plugin from '../src/index.js';

describe('fixed tariff', () => {
  test('declares a provider without dynamic prices, and does nothing else', async () => {
    const host = await startTestHost({ plugin });
    assert.deepEqual(host.prices.provider, { provider: 'Fixed tariff', scheduleType: 'none' });
    assert.equal(host.jobs.size, 0);
    assert.equal(host.prices.schedules.length, 0);
    await host.stop();
    assert.equal(host.prices.provider, undefined, 'the declaration is undone when the plugin stops');
  });

  test('takes the provider name and currency from the config', async () => {
    const host = await startTestHost({ plugin, config: { provider: 'Stadtwerke Musterstadt', currency: 'EUR' } });
    assert.deepEqual(host.prices.provider, {
      provider: 'Stadtwerke Musterstadt',
      currency: 'EUR',
      scheduleType: 'none',
    });
    await host.stop();
  });

  test('the config refuses an empty name and a malformed currency', async () => {
    await assert.rejects(startTestHost({ plugin, config: { provider: '  ' } }), /invalid config for fixed/);
    await assert.rejects(startTestHost({ plugin, config: { currency: 'euro' } }), /invalid config for fixed/);
  });
});
