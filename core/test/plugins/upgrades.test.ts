// The WebSocket upgrade paths plugins take on the service's port (ctx.integration.acceptUpgrades):
// which prefixes are refused and why, which paths a route takes, and that a route ends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UpgradeRoutes } from '../../src/plugins/context/upgrades.js';

const handler = () => {};

test('a route takes its prefix and the paths under it, nothing else, until disposed', () => {
  const routes = new UpgradeRoutes();
  const dispose = routes.add('/ocpp', 'instance "ocpp"', handler);
  assert.equal(routes.find('/ocpp'), handler);
  assert.equal(routes.find('/ocpp/CP1'), handler);
  assert.equal(routes.find('/ocppx/CP1'), undefined, 'a longer segment is another path');
  assert.equal(routes.find('/api/websocket'), undefined);
  dispose();
  assert.equal(routes.find('/ocpp/CP1'), undefined);
});

test('a prefix under /api, a malformed one or one overlapping another instance is refused in words', () => {
  const routes = new UpgradeRoutes();
  assert.throws(() => routes.add('/api/ocpp', 'a', handler), /is under \/api, the service's own API/);
  assert.throws(() => routes.add('/api', 'a', handler), /is under \/api/);
  assert.throws(() => routes.add('ocpp', 'a', handler), /must start with "\/"/);
  assert.throws(() => routes.add('/ocpp/', 'a', handler), /without a "\/" at the end/);
  routes.add('/ocpp', 'instance "one"', handler);
  assert.throws(() => routes.add('/ocpp', 'instance "two"', handler), /overlaps "\/ocpp" of instance "one"/);
  assert.throws(() => routes.add('/ocpp/site', 'instance "two"', handler), /overlaps "\/ocpp" of instance "one"/);
});
