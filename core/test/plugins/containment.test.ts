import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  unavailableIntegration,
  unavailableSite,
  type PluginContext,
  type SettingDeclaration,
} from '@heliograph/plugins-sdk';
import {
  attributeFailure,
  createScope,
  runInScope,
  scopedContext,
  type PluginScope,
} from '../../src/plugins/isolation/containment.js';
import { within } from '../helpers/deadline.js';

/** What attribution says for a failure raised in a later timer: whose is it? */
function ownerOfLaterFailure(): Promise<PluginScope | undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(attributeFailure(new Error('later'))), 0));
}

/** A context whose core side starts timers of its own, as the WebSocket throttle does on publish. */
function fakeContext(seen: Array<Promise<PluginScope | undefined>>, declared: SettingDeclaration[]): PluginContext {
  const registration = () => () => {};
  return {
    instanceId: 'p',
    devices: [],
    site: unavailableSite({ timeZone: 'UTC', latitude: 0, longitude: 0, temperatureUnit: 'C' }, 'not in this test'),
    log: { debug() {}, info() {}, warn() {}, error() {} },
    topics: {
      declare: (declaration) => {
        declared.push(...(declaration.settings ?? []));
        return registration();
      },
      publish: () => void seen.push(ownerOfLaterFailure()),
      record: () => {
        seen.push(ownerOfLaterFailure());
        return Promise.resolve();
      },
      identify: () => {},
      markUnavailable: () => {},
      markAvailable: () => {},
      updateSetting: () => {},
    },
    status: { error: () => {}, ok: () => {} },
    scheduler: {
      every: (job) => {
        // The core's scheduler calls the job from a timer of its own.
        setTimeout(() => void job.run({ signal: new AbortController().signal }), 0);
        return registration();
      },
      daily: registration,
    },
    forecast: { publish: () => void seen.push(ownerOfLaterFailure()) },
    prices: { declare: registration, publish: () => {} },
    integration: unavailableIntegration('not in this test'),
    http: undefined as never,
    store: { get: () => Promise.resolve(undefined), set: async () => {}, delete: async () => {} },
    signal: new AbortController().signal,
    now: () => 0,
  };
}

test("the plugin's callbacks and what they start are its own; what the core starts for its calls is not", async () => {
  // A folder holding none of the code on the stack: blame by file path must not find the
  // core's own files inside it (a checkout under /tmp would be, were the folder tmpdir()).
  const scope = createScope('p', join(tmpdir(), 'heliograph-no-such-plugin'), () => {});
  const coreSide: Array<Promise<PluginScope | undefined>> = [];
  const declared: SettingDeclaration[] = [];
  const ctx = scopedContext(fakeContext(coreSide, declared), scope);
  const pluginSide: Array<Promise<PluginScope | undefined>> = [];
  const ran = new Promise<void>((jobRan) => {
    runInScope(scope, () => {
      ctx.topics.publish({ device: 'inverter_1', values: {} });
      ctx.forecast.publish({ series: {} });
      void ctx.topics.record({ device: 'inverter_1', readings: [] });
      ctx.scheduler.every({
        name: 'poll',
        intervalMs: 1000,
        run() {
          pluginSide.push(ownerOfLaterFailure());
          jobRan();
        },
      });
    });
  });
  await within(ran, 'the first run of the scheduled job');
  runInScope(scope, () =>
    ctx.topics.declare({
      device: 'inverter_1',
      metrics: [],
      settings: [
        {
          name: 's',
          displayName: 'S',
          options: ['x'],
          write: () => {
            pluginSide.push(ownerOfLaterFailure());
            return Promise.resolve();
          },
        },
      ],
    }),
  );
  // The core calls a write handler from an API request, outside any scope.
  const setting = declared[0]!;
  assert.ok(setting.options);
  await setting.write({ value: 'x', label: 'x', signal: new AbortController().signal });
  const core = await Promise.all(coreSide);
  assert.equal(core.length, 3);
  for (const owner of core) assert.equal(owner, undefined);
  const plugin = await Promise.all(pluginSide);
  assert.equal(plugin.length, 2);
  for (const owner of plugin) assert.equal(owner?.instanceId, 'p');
});

test('a failure whose async context was lost is pinned on the plugin whose files are on its stack', () => {
  const scope = createScope('by-stack', '/opt/plugins/acme', () => {});
  const error = new Error('boom');
  error.stack = 'Error: boom\n    at parse (file:///opt/plugins/acme/index.js:3:9)';
  assert.equal(attributeFailure(error), scope);
  const core = new Error('core');
  core.stack = 'Error: core\n    at flush (file:///srv/heliograph/core/dist/src/history/store.js:1:1)';
  assert.equal(attributeFailure(core), undefined);
  const sibling = new Error('sibling');
  sibling.stack = 'Error: sibling\n    at x (file:///opt/plugins/acme-two/index.js:1:1)';
  assert.equal(attributeFailure(sibling), undefined, 'a directory sharing a prefix is another plugin');
});
