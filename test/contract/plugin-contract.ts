// The plugin contract: what a plugin sees and what clients see of it, asserted the same way
// against the SDK's test host (test-host.test.ts) and the server (server.test.ts), with the
// fixture plugin test/fixtures/plugins/contract. A case that passes on one host and fails on
// the other is a test host that lies to plugin authors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeviceIdentity } from '@heliograph/plugins-sdk';

/** A device as plugins.json lists it. */
export type DeviceEntry = string | { id: string; config?: Record<string, unknown> };

/** The instance as GET /api/v1/plugins shows it (the fields the contract reads). */
export interface ContractStatus {
  state: string;
  last_error: string | null;
  device_status: Array<{ id: string; available: boolean; reason: string | null; identity: DeviceIdentity }>;
}

/** One started instance of the contract plugin, as either host drives it. */
export interface ContractInstance {
  /** A topic's value as clients read it; undefined when the topic does not exist. */
  value(topic: string): Promise<unknown>;
  /** Writes as a client would: null when the write went through, else the refusal's message. */
  write(topic: string, value: string): Promise<string | null>;
  status(): Promise<ContractStatus>;
  /** Moves the host's clock on, and lets it notice silent devices. */
  advance(ms: number): Promise<void>;
}

/** A host that runs the contract plugin. */
export interface ContractHost {
  /** Starts an instance, resolved once its setup and first poll are over. */
  start(entry: { id: string; devices: DeviceEntry[]; config?: Record<string, unknown> }): Promise<ContractInstance>;
  /** Starts an instance whose start fails; resolves with the error its status shows. */
  failedStart(entry: { id: string; devices: DeviceEntry[]; config?: Record<string, unknown> }): Promise<string>;
}

export function pluginContract(name: string, host: ContractHost): void {
  describe(`the plugin contract on ${name}`, () => {
    it('publishes declared metrics; a value of an undeclared metric is dropped, not thrown', async () => {
      const roof = await host.start({ id: 'roof', devices: ['inverter_1'] });
      assert.equal(await roof.value('inverter_1/pv_power'), 1234);
      assert.equal(await roof.value('inverter_1/undeclared_metric'), undefined);
      const status = await roof.status();
      assert.equal(status.state, 'running', 'the poll that published it did not fail');
      assert.equal(status.last_error, null);
    });

    it("ctx.instanceId is the instance's plugins.json id", async () => {
      const roof = await host.start({ id: 'garage-roof', devices: ['inverter_1'] });
      assert.equal(await roof.value('inverter_1/instance'), 'garage-roof');
    });

    it('identity rows from the declaration and identify, per device in the status', async () => {
      const roof = await host.start({ id: 'roof', devices: [{ id: 'inverter_1', config: { serial: 'SN-7' } }] });
      assert.equal(await roof.value('inverter_1/manufacturer'), 'Acme');
      assert.equal(await roof.value('inverter_1/model'), 'Contract 1');
      assert.equal(await roof.value('inverter_1/serial_number'), 'SN-7', 'per-device config reached the plugin');
      assert.deepEqual((await roof.status()).device_status, [
        {
          id: 'inverter_1',
          available: true,
          reason: null,
          identity: { manufacturer: 'Acme', model: 'Contract 1', serial: 'SN-7' },
        },
      ]);
    });

    it('a device silent for three poll intervals reads null; its identity stays', async () => {
      const roof = await host.start({ id: 'roof', devices: ['inverter_1'], config: { pollIntervalMs: 60_000 } });
      await roof.advance(180_000);
      assert.equal(await roof.value('inverter_1/pv_power'), 1234, 'not stale at three intervals exactly');
      await roof.advance(1);
      assert.equal(await roof.value('inverter_1/pv_power'), null);
      assert.equal(await roof.value('inverter_1/instance'), null);
      assert.equal(await roof.value('inverter_1/manufacturer'), 'Acme');
      const [device] = (await roof.status()).device_status;
      assert.deepEqual(device && { available: device.available, reason: device.reason }, {
        available: false,
        reason: 'no reading for more than 180 s',
      });
    });

    it('markUnavailable reads null at once; markAvailable brings the values back', async () => {
      const roof = await host.start({ id: 'roof', devices: ['inverter_1', 'inverter_2'] });
      assert.equal(await roof.write('inverter_2/control', 'other down'), null);
      assert.equal(await roof.value('inverter_1/pv_power'), null);
      assert.equal(await roof.value('inverter_1/serial_number'), 'SN-1', 'identity is never nulled');
      assert.equal(await roof.value('inverter_2/pv_power'), 1234, 'the other device still answers');
      const down = (await roof.status()).device_status[0];
      assert.deepEqual(down && { available: down.available, reason: down.reason }, {
        available: false,
        reason: 'no answer within 1500 ms',
      });

      assert.equal(await roof.write('inverter_2/control', 'other up'), null);
      assert.equal(await roof.value('inverter_1/pv_power'), 1234);
      assert.equal((await roof.status()).device_status[0]?.available, true);
    });

    it('writes are validated and converted: options by label, ranges, switches', async () => {
      const roof = await host.start({ id: 'roof', devices: ['inverter_1'] });
      assert.equal(await roof.write('inverter_1/work_mode', 'Zero export'), null);
      assert.equal(await roof.value('inverter_1/work_mode'), 'Zero export');
      assert.equal(await roof.value('inverter_1/last_write'), 'work_mode=1 (Zero export)', 'the handler got the value');
      assert.equal(
        await roof.write('inverter_1/work_mode', 'Sell everything'),
        'value "Sell everything" is not allowed; allowed values: "Selling first", "Zero export", "Refuse", "Silent", "Broken"',
      );

      assert.equal(await roof.write('inverter_1/charge_limit', '30'), null);
      assert.equal(await roof.value('inverter_1/last_write'), 'charge_limit=30', 'a number, not text');
      assert.equal(
        await roof.write('inverter_1/charge_limit', '150'),
        'value "150" is not allowed; expected a number from 0 to 100 in steps of 10',
      );
      assert.equal(await roof.value('inverter_1/charge_limit'), 30, 'a refused write changes nothing');

      assert.equal(await roof.write('inverter_1/grid_charge', 'Enabled'), null);
      assert.equal(await roof.value('inverter_1/last_write'), 'grid_charge=true');
      assert.equal(await roof.value('inverter_1/grid_charge'), 'Enabled');
      assert.equal(await roof.write('inverter_1/grid_charge', 'false'), null, 'true and false are accepted too');
      assert.equal(await roof.value('inverter_1/grid_charge'), 'Disabled');
      assert.equal(
        await roof.write('inverter_1/grid_charge', 'on'),
        'value "on" is not allowed; allowed values: "Enabled", "Disabled"',
      );
      assert.equal((await roof.status()).state, 'running', 'refusals by the rules are not failures of the plugin');
    });

    it('failed writes say whether the device refused or did not answer, and fail the instance', async () => {
      const roof = await host.start({ id: 'roof', devices: ['inverter_1'] });
      assert.equal(await roof.write('inverter_1/work_mode', 'Refuse'), 'the device refused: (NAK');
      assert.equal(
        await roof.write('inverter_1/work_mode', 'Silent'),
        'the device did not answer: no reply within 1500 ms',
      );
      assert.equal(
        await roof.write('inverter_1/work_mode', 'Broken'),
        'write failed: the gateway closed the connection',
      );
      const status = await roof.status();
      assert.equal(status.state, 'failed');
      assert.equal(status.last_error, 'write to inverter_1/work_mode: write failed: the gateway closed the connection');
    });

    it('ctx.status.error fails the instance until ctx.status.ok', async () => {
      const roof = await host.start({ id: 'roof', devices: ['inverter_1'] });
      assert.equal(await roof.write('inverter_1/control', 'status error'), null);
      assert.deepEqual(await stateOf(roof), { state: 'failed', last_error: 'socket closed by the gateway' });
      assert.equal(await roof.write('inverter_1/control', 'status ok'), null);
      assert.deepEqual(await stateOf(roof), { state: 'running', last_error: null });
    });

    it('a ConfigError from setup fails the instance once, saying what to change', async () => {
      const error = await host.failedStart({ id: 'roof', devices: ['inverter_1'], config: { failSetup: true } });
      // No "; retrying in N s": a configuration mistake is not retried.
      assert.equal(error, 'configuration error: unitId 9 does not answer on this bus: check the wiring');
    });
  });
}

async function stateOf(instance: ContractInstance): Promise<{ state: string; last_error: string | null }> {
  const { state, last_error } = await instance.status();
  return { state, last_error };
}
