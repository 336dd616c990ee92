/*
 * What an integration plugin (manifest kind `integration`: an MQTT bridge, a history
 * mirror) needs from the core: every topic's definition, its values as they change, the
 * core's write path and the readings history records. Re-exported from the SDK's main entry.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Disposer, MetricValue } from './basics.js';

/**
 * Home Assistant's view of a topic, exactly as `GET /api/v1/metrics?discovery` adds it to
 * every row: which entity to create and how to describe it.
 *
 * @example
 * // inverter_1/output_source_priority, a setting with three options
 * { platform: 'select', device_class: null, state_class: null, unit_of_measurement: null,
 *   min: null, max: null, step: null, options: ['Utility first', 'Solar first', 'SBU priority'],
 *   payload_on: null, payload_off: null }
 */
export interface TopicDiscovery {
  platform: 'sensor' | 'number' | 'select' | 'switch' | 'binary_sensor';
  /** Home Assistant device class (`power`, `energy`, `battery`...), null for none. */
  device_class: string | null;
  state_class: 'measurement' | 'total' | 'total_increasing' | null;
  unit_of_measurement: string | null;
  /** Range of a `number`; null on every other platform. */
  min: number | null;
  max: number | null;
  step: number | null;
  /** Choices of a `select`. */
  options: string[] | null;
  /** Values of a `switch` meaning on and off, as they are written and read. */
  payload_on: string | null;
  payload_off: string | null;
}

/**
 * One topic as an integration sees it: what `GET /api/v1/metrics?discovery` tells about it,
 * without its value (values come through {@link IntegrationApi.subscribe}).
 *
 * @example
 * { topic: 'inverter_1/pv_power', deviceId: 'inverter_1', name: 'PV power', unit: 'W',
 *   type: 'number', group: 'Status', writable: null, recorded: true,
 *   discovery: { platform: 'sensor', device_class: 'power', state_class: 'measurement', ... } }
 */
export interface TopicDefinition {
  /** `inverter_1/pv_power` */
  topic: string;
  /** The topic's prefix: a device id (`inverter_1`) or `total`, `weather`... */
  deviceId: string;
  /** Display name, e.g. `PV power`. */
  name: string;
  /** Unit, empty for none. */
  unit: string;
  type: 'number' | 'string' | 'boolean';
  group: 'Status' | 'Settings' | 'Info';
  /** Allowed values of a setting; null for a read-only topic. */
  writable: { options: readonly string[] } | { min: number; max: number; step: number } | null;
  /** Whether history records it (what {@link IntegrationApi.onRecorded} reports). */
  recorded: boolean;
  discovery: TopicDiscovery;
}

/**
 * A topic's value at a moment: `time` in Unix ms. `value` is what clients see (`null` while
 * its device is stale or unavailable).
 *
 * @example
 * { topic: 'inverter_1/pv_power', value: 1830, time: 1763805600000 }
 */
export interface TopicUpdate {
  topic: string;
  value: MetricValue;
  time: number;
}

/**
 * One reading history recorded (a live reading or a 10-s sample of a held value).
 *
 * @example
 * { topic: 'total/pv_power', time: 1763805600000, value: 2140 }
 */
export interface RecordedReading {
  topic: string;
  time: number;
  value: number;
}

/**
 * What {@link IntegrationApi.subscribe} takes.
 *
 * @example
 * { filter: ['inverter_*', 'total/*'], onValues: (updates) => send(updates), onDefinitions: () => announce() }
 */
export interface SubscribeOptions {
  /**
   * Topic globs as the API defines them (`*` any run of characters including `/`, `?` one
   * character), the WebSocket's filter semantics. Default: every topic.
   */
  filter?: string[];
  /**
   * Values of selected topics: first the current value of each (at once, in one call), then
   * every change, one call per registry tick. Never throw from here: errors are logged.
   */
  onValues(updates: TopicUpdate[]): void;
  /** Topics were added or removed: read {@link IntegrationApi.definitions} again. */
  onDefinitions?(): void;
}

/**
 * The integration API, `ctx.integration`. Present on every plugin's context; its methods
 * throw when the host that runs the plugin has no such service (a test host without one).
 * Subscriptions end by themselves when the plugin stops.
 *
 * @example
 * const stop = ctx.integration.subscribe({
 *   filter: ['inverter_1/*'],
 *   onValues: (updates) => { for (const u of updates) client.publish(`solar/${u.topic}`, String(u.value)); },
 * });
 * const result = await ctx.integration.write({ topic: 'inverter_1/max_charge_current', value: '60' });
 * if (!result.ok) ctx.log.warn(result.message);
 */
export interface IntegrationApi {
  /** Every topic there is now, by topic ascending. */
  definitions(): TopicDefinition[];
  /** Values of the topics the filter selects, now and as they change. */
  subscribe(options: SubscribeOptions): Disposer;
  /**
   * Writes a setting through the core's write path, as `ctx.site.write` does (audited
   * with `via` = this plugin's id, `who` = `plugin:<instance id>`), but never throws for a
   * refused write: the answer says why.
   */
  write(args: {
    topic: string;
    value: string | number | boolean;
    /** @deprecated Ignored: the audit names the plugin that wrote by its id. */
    via?: string;
  }): Promise<WriteResult>;
  /**
   * Readings history records, in batches (one per registry tick or sampling pass), as they
   * are recorded. Each batch comes with its position; pass the position of the last batch
   * you kept as `after` and the batches recorded since are handed to you first (the core
   * keeps the latest 20 000 readings since it started): a plugin that starts after the
   * recorder, or starts again after a config change, misses nothing and gets nothing twice.
   * Without `after` (or with one from before the service restarted) you get every batch
   * kept since the service started, from its first slot.
   */
  onRecorded(args: {
    handler: (readings: RecordedReading[], position: string) => void;
    after?: string | null;
  }): Disposer;
  /**
   * A directory of this plugin instance's own under the service's data directory
   * (`<data>/plugins/<instance id>`), created on first read: for files that outgrow
   * `ctx.store`, such as a queue on disk. It survives restarts and updates.
   */
  readonly dataDir: string;
  /** The site's stable id (as mDNS and `GET /api/v1/system` show it), for ids unique across sites. */
  readonly siteId: number;
  /**
   * Takes the WebSocket upgrades of the service's own port whose path is `prefix` or under it
   * (`/ocpp` takes `/ocpp/CP1`): a device that connects to Heliograph, such as an EV charger
   * speaking OCPP-J. The core checks nothing on these paths (no password, no Host or Origin
   * policy: chargers send no Origin): the handler authenticates, and answers or destroys the
   * socket. Only for a plugin in the service's process: in a worker process this throws
   * (a socket cannot be handed to it); give such a plugin a port of its own instead.
   * `prefix` starts with `/`, does not end with one, is not under `/api`, and is not taken by
   * another instance; a wrong one throws saying which. The route ends when the plugin stops.
   *
   * @example
   * const rpc = new RPCServer({ protocols: ['ocpp1.6'], strictMode: true });
   * ctx.integration.acceptUpgrades({ prefix: '/ocpp', handler: (req, socket, head) => rpc.handleUpgrade(req, socket, head) });
   */
  acceptUpgrades(args: { prefix: string; handler: UpgradeHandler }): Disposer;
}

/**
 * What takes a WebSocket upgrade handed to a plugin: Node's `upgrade` event's arguments (the
 * request, its socket, the first bytes after the headers), as `ws` and `ocpp-rpc` take them.
 *
 * @example
 * const handler: UpgradeHandler = (request, socket, head) => wss.handleUpgrade(request, socket, head, accept);
 */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * What {@link IntegrationApi.write} answers.
 *
 * @example
 * { ok: false, message: 'value "200" is not allowed; expected a number from 10 to 120 in steps of 10' }
 */
export type WriteResult = { ok: true } | { ok: false; message: string };

/**
 * An {@link IntegrationApi} for a host that has none (a plugin's own process, the SDK's test host):
 * every use throws `ctx.integration: <reason>`, so a plugin fails where it first needs it.
 *
 * @example
 * const ctx = { ...otherApis, integration: unavailableIntegration('plugins in a process of their own cannot use it') };
 */
export function unavailableIntegration(reason: string): IntegrationApi {
  const fail = (): never => {
    throw new Error(`ctx.integration: ${reason}`);
  };
  return {
    definitions: fail,
    subscribe: fail,
    write: () => Promise.reject(new Error(`ctx.integration: ${reason}`)),
    onRecorded: fail,
    get dataDir() {
      return fail();
    },
    get siteId() {
      return fail();
    },
    acceptUpgrades: fail,
  };
}
