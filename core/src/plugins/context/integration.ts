import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  unavailableIntegration,
  type Disposer,
  type IntegrationApi,
  type TopicDefinition,
} from '@heliograph/plugins-sdk';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../log.js';
import { discoveryFields } from '../../topics/discovery.js';
import type { TopicMeta, TopicRegistry } from '../../topics/registry.js';
import type { WriteService } from '../../writes/service.js';
import type { RecordedFeed } from './integration-recorded.js';
import { IntegrationSubscription } from './integration-subscription.js';
import type { UpgradeRoutes } from './upgrades.js';

/** What the core gives `ctx.integration` beyond the registry and the write path. */
export interface IntegrationServices {
  recorded: RecordedFeed;
  /** The service's data directory; each instance gets `plugins/<id>` under it. */
  dataDir: string;
  siteId: number;
  /** The WebSocket upgrade paths plugins take on the service's port; without it `acceptUpgrades` throws. */
  upgrades?: UpgradeRoutes;
}

export interface IntegrationApiOptions {
  instanceId: string;
  /** The plugin's id: the audit's `via` of its writes. */
  pluginId: string;
  registry: TopicRegistry;
  writes: WriteService;
  clock: Clock;
  /** Undefined on a host without them: every method then throws. */
  services: IntegrationServices | undefined;
  /** Keeps a registration so the instance's stop undoes it. */
  track: (dispose: Disposer) => Disposer;
  log: Logger;
  /** The refusal's sentence when the instance's grants do not cover writing `topic` (already reported). */
  refusedWrite?: (topic: string) => string | undefined;
}

const definitions = new WeakMap<TopicMeta, TopicDefinition>();

/** A topic as plugins see it, built once per definition. */
export function definitionOf(meta: TopicMeta): TopicDefinition {
  let definition = definitions.get(meta);
  if (!definition) {
    definition = {
      topic: meta.topic,
      deviceId: meta.deviceId,
      name: meta.name,
      unit: meta.unit,
      type: meta.type,
      group: meta.group,
      writable: meta.writable ?? null,
      recorded: meta.recorded,
      discovery: discoveryFields(meta),
    };
    definitions.set(meta, definition);
  }
  return definition;
}

/** `ctx.integration` of one plugin instance (see the SDK's IntegrationApi). */
export function integrationApi(options: IntegrationApiOptions): IntegrationApi {
  const { instanceId, pluginId, registry, writes, clock, services, track, log } = options;
  if (!services) return unavailableIntegration('this host has no integration service');
  let dataDir: string | undefined;
  return {
    definitions: () => registry.list().map((state) => definitionOf(state.meta)),
    subscribe: (subscription) => track(new IntegrationSubscription(registry, clock, subscription, log).start()),
    // Any `via` an older plugin still passes is ignored: the audit names the plugin itself.
    write: async ({ topic, value }) => {
      const refused = options.refusedWrite?.(topic);
      if (refused) return { ok: false, message: refused };
      const outcome = await writes.write({
        topic,
        value: writtenText(registry, topic, value),
        who: `plugin:${instanceId}`,
        via: pluginId,
      });
      return outcome.ok ? { ok: true } : { ok: false, message: outcome.message };
    },
    onRecorded: ({ handler, after }) => track(services.recorded.listen(handler, after)),
    get dataDir() {
      if (dataDir === undefined) {
        dataDir = join(services.dataDir, 'plugins', instanceId);
        mkdirSync(dataDir, { recursive: true });
      }
      return dataDir;
    },
    get siteId() {
      return services.siteId;
    },
    acceptUpgrades: ({ prefix, handler }) => {
      if (!services.upgrades) throw new Error('ctx.integration.acceptUpgrades: this host serves no port to share');
      return track(services.upgrades.add(prefix, `instance "${instanceId}"`, handler));
    },
  };
}

/** What the write path takes: a switch's true and false become its on and off values. */
export function writtenText(registry: TopicRegistry, topic: string, value: string | number | boolean): string {
  if (typeof value !== 'boolean') return String(value);
  const meta = registry.get(topic)?.meta;
  const fields = meta ? discoveryFields(meta) : undefined;
  const text = value ? fields?.payload_on : fields?.payload_off;
  return text ?? String(value);
}
