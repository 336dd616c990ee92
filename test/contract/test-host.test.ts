// The plugin contract (plugin-contract.ts) against the SDK's test host.
import { join } from 'node:path';
import { after } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { PluginDefinition } from '@heliograph/plugins-sdk';
import { startTestHost, stopTestHosts, type TestHostOptions } from '@heliograph/plugins-sdk/testing';
import { REPO_ROOT } from '../helpers/server.js';
import { pluginContract, type ContractHost } from './plugin-contract.js';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'plugins', 'contract');
const plugin = ((await import(pathToFileURL(join(FIXTURE, 'index.js')).href)) as { default: PluginDefinition }).default;
const manifest: TestHostOptions<PluginDefinition['configSchema']>['manifest'] = {
  kind: 'inverter',
  devices: { kinds: ['inverter'], min: 1, max: 2 },
};
after(() => stopTestHosts());

const testHost: ContractHost = {
  async start({ id, devices, config }) {
    const host = await startTestHost({ plugin, instanceId: id, devices, config, manifest });
    // The server runs an `every` job at once when the instance starts.
    await host.runJob('poll');
    return {
      value: (topic) => Promise.resolve(host.value(topic)),
      async write(topic, value) {
        try {
          await host.write(topic, value);
          return null;
        } catch (err) {
          return (err as Error).message;
        }
      },
      status: () => Promise.resolve(host.status),
      advance: (ms) => Promise.resolve(host.advance(ms)),
    };
  },
  async failedStart({ id, devices, config }) {
    const started = await startTestHost({ plugin, instanceId: id, devices, config, manifest }).then(
      () => 'started',
      (err: Error) => err.message,
    );
    return started;
  },
};

pluginContract('the test host', testHost);
