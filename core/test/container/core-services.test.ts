// The composition root's registrations: one instance of each service per container, a child
// container per plugin instance, and tests replacing a registration instead of threading it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { join } from 'node:path';
import type { Got } from 'got';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/load.js';
import { registerCoreServices } from '../../src/container/core-services.js';
import { container, type DependencyContainer } from '../../src/container/di.js';
import { CLOCK, CONFIG, DB, HTTP_CLIENT } from '../../src/container/tokens.js';
import { HISTORY, PLUGIN_CONTEXTS } from '../../src/container/service-tokens.js';
import { migrate, openDatabase } from '../../src/db.js';
import type { HistoryStore } from '../../src/history/store.js';
import type { PluginInstanceScope } from '../../src/plugins/context/context.js';
import { pluginStoreMigrations } from '../../src/plugins/context/plugin-store.js';
import { TopicRegistry } from '../../src/topics/registry.js';
import { auditMigrations } from '../../src/writes/audit.js';
import { WriteService } from '../../src/writes/service.js';
import { tempDir } from '../helpers/tmp.js';

const T0 = Date.parse('2026-06-01T10:00:00Z');

async function composed(register?: (di: DependencyContainer) => void): Promise<DependencyContainer> {
  const di = container.createChildContainer();
  di.register(CONFIG, { useValue: loadConfig() });
  di.register(CLOCK, { useValue: new ManualClock(T0) });
  registerCoreServices(di);
  const db = await openDatabase(join(tempDir(), 'heliograph.db'));
  await migrate(db, [...auditMigrations, ...pluginStoreMigrations]);
  di.register(DB, { useValue: db });
  di.register(HISTORY, { useValue: { recordPastSeries: async () => {} } as unknown as HistoryStore });
  register?.(di);
  return di;
}

function instance(id: string): PluginInstanceScope {
  return {
    id,
    plugin: id,
    devices: [],
    abort: new AbortController(),
    reporter: { succeeded() {}, failed() {}, writeFailed() {}, statusError() {}, statusOk() {} },
  };
}

describe('registerCoreServices', () => {
  it('builds each service once per container, with constructor-injected collaborators', async () => {
    const a = await composed();
    const b = await composed();
    assert.equal(a.resolve(TopicRegistry), a.resolve(TopicRegistry));
    assert.notEqual(a.resolve(TopicRegistry), b.resolve(TopicRegistry), 'two servers in one process share nothing');
    assert.equal(a.resolve(WriteService), a.resolve(WriteService));
    assert.ok(a.resolve(WriteService) instanceof WriteService);
  });

  it('resolves each plugin context from a child container that holds its instance', async () => {
    const made: Array<{ signal: AbortSignal }> = [];
    const fakeHttp = (signal: AbortSignal) => {
      made.push({ signal });
      return { fake: true } as unknown as Got;
    };
    const di = await composed((c) => c.register(HTTP_CLIENT, { useValue: fakeHttp }));
    const contexts = di.resolve(PLUGIN_CONTEXTS);
    const first = instance('one');
    const ctxOne = contexts(first).build();
    const ctxTwo = contexts(instance('two')).build();
    assert.equal(ctxOne.instanceId, 'one');
    assert.equal(ctxTwo.instanceId, 'two');
    assert.deepEqual(ctxOne.http, { fake: true }, 'the overriding registration, not got');
    assert.equal(made.length, 1, 'ctx.http is made on first use only');
    assert.equal(made[0]!.signal, first.abort.signal, "bound to the instance's own abort signal");
  });
});
