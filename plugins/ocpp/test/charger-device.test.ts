// A charger device after its stop (issue 42): its topics are undeclared then, so nothing may
// publish on them: not a charging profile the charger confirms during the stop, not a message
// the charger sent just before its connection closed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Device, PluginContext } from '@heliograph/plugins-sdk';
import type { RpcPeer } from '../src/charger-link.js';
import { ChargerDevice } from '../src/charger-device.js';
import { chargerSchema, configSchema } from '../src/config.js';

/** The context's parts a charger device uses; publishes are counted, after the stop they fail the test. */
function fakeContext() {
  const store = new Map<string, unknown>();
  const published: Array<Record<string, unknown>> = [];
  const ctx = {
    now: () => Date.parse('2026-06-21T18:00:00Z'),
    store: {
      get: (key: string) => Promise.resolve(store.get(key)),
      set: (key: string, value: unknown) => Promise.resolve(void store.set(key, value)),
    },
    topics: {
      declare: () => undefined,
      publish: ({ values }: { values: Record<string, unknown> }) => published.push(values),
    },
    site: { write: () => Promise.resolve() },
    log: { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined },
  };
  return { ctx: ctx as unknown as PluginContext, published };
}

/** A charger's connection whose SetChargingProfile answer the test gives. */
function fakePeer() {
  let answer!: (value: unknown) => void;
  const peer: RpcPeer = {
    identity: 'CP1',
    handle: () => undefined,
    call: (method) =>
      method === 'SetChargingProfile' ? new Promise((resolve) => (answer = resolve)) : Promise.resolve({}),
    close: () => Promise.resolve(),
    on: () => undefined,
  };
  return { peer, accept: () => answer({ status: 'Accepted' }) };
}

test('a stopped charger publishes nothing: not a profile confirmed during the stop, not a late message', async () => {
  const { ctx, published } = fakeContext();
  const device: Device = { id: 'charger_1', kind: 'charger' } as Device;
  const charger = chargerSchema.parse({ chargePointId: 'CP1', password: 'charger-one-password-16' });
  const config = configSchema.parse({ chargers: { charger_1: charger } });
  const chargerDevice = new ChargerDevice(ctx, device, charger, config);
  await chargerDevice.start();
  const { peer, accept } = fakePeer();
  chargerDevice.link.attach(peer);

  const limit = chargerDevice.sendLimit(16);
  await chargerDevice.stop();
  const atStop = published.length;
  accept();
  await limit;
  chargerDevice.changed();
  chargerDevice.publish();
  assert.equal(published.length, atStop, `published after the stop: ${JSON.stringify(published.slice(atStop))}`);
});
