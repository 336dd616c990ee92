import { readFileSync } from 'node:fs';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { ConfigError, type PluginContext, type TopicUpdate } from '@heliograph/plugins-sdk';
import { Announcer } from './announcer.js';
import { minIntervalOf, type MqttConfig } from './config.js';
import { availabilityTopic, isIdentityTopic, statePayload, stateTopic } from './discovery.js';
import { StatePublisher } from './states.js';
import { handleSet, SetGate } from './set-gate.js';

/** Reconnect back-off: the first retry after a second, doubling up to a minute. */
const RECONNECT_MIN_MS = 1000;
const RECONNECT_MAX_MS = 60_000;
/** Incoming messages handled between two turns of the event loop. */
const YIELD_EVERY = 10;

/**
 * The MQTT bridge of one plugin instance: states out, writes in, Home Assistant discovery,
 * availability with a last will. mqtt.js reconnects by itself; each connect republishes
 * availability, every discovery config and every current state (all retained), so a broker
 * that restarted without persistence is whole again.
 */
export class MqttBridge {
  private readonly client: MqttClient;
  private readonly states: StatePublisher;
  private readonly announcer: Announcer;
  private readonly setFilter: string;
  private readonly gate: SetGate;
  /** The settings among the bridged topics (each gets a write budget of its own). */
  private writable = new Set<string>();
  private announceQueued = false;
  private stopped = false;

  constructor(
    private readonly ctx: PluginContext,
    private readonly config: MqttConfig,
  ) {
    const { prefix } = config;
    const integration = ctx.integration;
    this.setFilter = `${prefix}/+/+/set`;
    this.states = new StatePublisher({
      minIntervalOf: (topic) => minIntervalOf(config, topic),
      now: () => ctx.now(),
      payloadOf: statePayload,
      send: (topic, payload) => {
        if (!this.client.connected) return false;
        this.client.publish(stateTopic(prefix, topic), payload, { retain: true, qos: 0 });
        return true;
      },
    });
    this.announcer = new Announcer({
      names: { prefix, discoveryPrefix: config.discoveryPrefix, siteId: integration.siteId },
      enabled: config.discovery,
      store: ctx.store,
      send: async (topic, payload) => void (await this.client.publishAsync(topic, payload, { retain: true, qos: 1 })),
    });
    this.client = mqtt.connect(config.url, clientOptions(ctx, config));
    this.client.on('connect', () => void this.onConnect());
    this.client.on('reconnect', () => {
      this.client.options.reconnectPeriod = Math.min(
        (this.client.options.reconnectPeriod ?? RECONNECT_MIN_MS) * 2,
        RECONNECT_MAX_MS,
      );
    });
    // Broker trouble shows in the plugin's status (and the log, once per distinct error) until
    // the next successful connect clears it.
    this.client.on('error', (err) => ctx.status.error({ message: `MQTT broker ${config.url}: ${err.message}` }));
    this.client.on('offline', () => {
      if (!this.stopped) ctx.status.error({ message: `MQTT broker ${config.url}: not connected` });
    });
    this.gate = new SetGate(
      () => ctx.now(),
      (topic) => this.writable.has(topic),
      (line) => ctx.log.info(line),
    );
    this.client.on('message', (topic, payload) => void this.onMessage(topic, payload));
    // mqtt.js works through every packet of a socket read in process.nextTick callbacks, so a
    // flood of /set messages would hold the event loop (REST, the stream) until it is all
    // handled. Every YIELD_EVERY-th message waits for the next turn instead: the broker's
    // messages are read at the pace the service handles them, and other work gets its turns.
    let handled = 0;
    this.client.handleMessage = (_packet, done) => {
      if (++handled % YIELD_EVERY === 0) setImmediate(() => done());
      else done();
    };
    ctx.integration.subscribe({
      filter: config.topics,
      onValues: (updates) => this.onValues(updates),
      onDefinitions: () => this.queueAnnounce(),
    });
  }

  /** Says offline (retained) and disconnects; the will covers a crash instead. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.states.stop();
    this.gate.flush();
    if (this.client.connected)
      await this.client
        .publishAsync(availabilityTopic(this.config.prefix), 'offline', { retain: true, qos: 1 })
        .catch(() => undefined);
    await this.client.endAsync();
  }

  private async onConnect(): Promise<void> {
    const { client, config, ctx } = this;
    client.options.reconnectPeriod = RECONNECT_MIN_MS;
    ctx.log.info(`connected to MQTT broker ${config.url}`);
    ctx.status.ok();
    try {
      await client.subscribeAsync(this.setFilter, { qos: 1 });
      await this.announce(true);
      this.states.republishAll();
      // Online last: by then Home Assistant finds every entity and its state.
      await client.publishAsync(availabilityTopic(config.prefix), 'online', { retain: true, qos: 1 });
    } catch (err) {
      if (!this.stopped) ctx.status.error({ message: `MQTT broker ${config.url}: ${(err as Error).message}` });
    }
  }

  private onValues(updates: TopicUpdate[]): void {
    let identityChanged = false;
    for (const { topic, value } of updates) {
      this.states.update(topic, value);
      if (isIdentityTopic(topic)) identityChanged = true;
    }
    if (identityChanged) this.queueAnnounce();
  }

  /**
   * Topics came or went, or a device's identity changed. Later in this turn, so the values
   * of new topics (which follow their definitions) are known when their device is announced.
   */
  private queueAnnounce(): void {
    if (this.announceQueued) return;
    this.announceQueued = true;
    setImmediate(() => {
      this.announceQueued = false;
      if (this.client.connected && !this.stopped)
        this.announce(false).catch((err: Error) => this.ctx.log.warn(`MQTT discovery: ${err.message}`));
    });
  }

  private announce(force: boolean): Promise<void> {
    const bridged = this.states.values;
    const definitions = this.ctx.integration.definitions();
    this.writable = new Set(definitions.filter((d) => d.writable !== null).map((d) => d.topic));
    // Values of topics that are gone are forgotten; the rest are the bridged topics.
    const present = new Set(definitions.map((d) => d.topic));
    for (const topic of [...bridged.keys()]) if (!present.has(topic)) this.states.forget(topic);
    return this.announcer.announce(
      definitions.filter((d) => bridged.has(d.topic)),
      bridged,
      force,
    );
  }

  /** `<prefix>/<topic>/set`: the write through the gate, then its result on `<prefix>/set_response`. */
  private onMessage(mqttTopic: string, payload: Buffer): Promise<void> {
    return handleSet(
      {
        prefix: this.config.prefix,
        gate: this.gate,
        write: (request) => this.ctx.integration.write(request),
        respond: (response, qos) => this.respond(response, qos),
      },
      mqttTopic,
      payload,
    );
  }

  private async respond(response: Record<string, unknown>, qos: 0 | 1 = 1): Promise<void> {
    if (this.client.connected)
      await this.client
        .publishAsync(`${this.config.prefix}/set_response`, JSON.stringify(response), { qos })
        .catch(() => undefined);
  }
}

function clientOptions(ctx: PluginContext, config: MqttConfig): IClientOptions {
  const options: IClientOptions = {
    clientId: `heliograph_${ctx.integration.siteId}_${ctx.instanceId}`,
    reconnectPeriod: RECONNECT_MIN_MS,
    connectTimeout: 10_000,
    // States are not queued while offline: the reconnect republishes the current ones.
    queueQoSZero: false,
    will: { topic: availabilityTopic(config.prefix), payload: Buffer.from('offline'), retain: true, qos: 1 },
  };
  if (config.username !== undefined) options.username = config.username;
  if (config.password !== undefined) options.password = config.password;
  const { tls } = config;
  if (tls) {
    options.rejectUnauthorized = tls.rejectUnauthorized;
    if (tls.ca) options.ca = readPem(tls.ca, 'tls.ca');
    if (tls.cert) options.cert = readPem(tls.cert, 'tls.cert');
    if (tls.key) options.key = readPem(tls.key, 'tls.key');
  }
  return options;
}

function readPem(path: string, field: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new ConfigError(`${field}: cannot read ${path}: ${(err as Error).message}; give the path of a PEM file`);
  }
}
