import { DbWriter } from '../../src/db-writer.js';
import { DeviceRefusedError, type MetricValue, type SettingDeclaration } from '@heliograph/plugins-sdk';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach } from 'node:test';
import { createApp, listen, type RunningServer } from '../../src/api/app.js';
import {
  attachWebsocket,
  upgradeRequiredRoutes,
  type Timers,
  type WebsocketEndpoint,
  type WebsocketOptions,
} from '../../src/api/websocket/index.js';
import type { Authenticator, AuthOutcome, Credentials } from '../../src/auth/types.js';
import { ManualClock } from '../../src/clock.js';
import { migrate, openDatabase, type Db } from '../../src/db.js';
import { SystemInfo } from '../../src/system/info.js';
import { TopicRegistry, type TopicMeta, type TopicState, type Writable } from '../../src/topics/registry.js';
import { AuditLog, auditMigrations } from '../../src/writes/audit.js';
import { WriteService } from '../../src/writes/service.js';
import { topicMeta } from '../helpers/topics.js';

export const PASSWORD = 'sunny-side-up';
export const TOKEN = 'tok-kitchen-panel';
/** A token with scope read (`wall display`): may watch, may not write. */
export const READ_TOKEN = 'tok-wall-display';
export const REALM = 'Heliograph';

/**
 * Accepts one password (`admin`) and one token (`kitchen panel`); after five failed
 * attempts from an address it answers 429, as the real authenticator's throttling does.
 */
export class OnePasswordAuthenticator implements Authenticator {
  private readonly failures = new Map<string, number>();

  authenticate(credentials: Credentials | undefined, clientIp: string): Promise<AuthOutcome> {
    return Promise.resolve(this.outcome(credentials, clientIp));
  }

  private outcome(credentials: Credentials | undefined, clientIp: string): AuthOutcome {
    const failures = this.failures.get(clientIp) ?? 0;
    if (failures >= 5)
      return {
        ok: false,
        status: 429,
        message: 'too many failed logins; wait and try again',
        retryAfterS: 2 ** (failures - 5),
      };
    if (!credentials) return { ok: false, status: 401, message: 'credentials required: pass ?password= or ?token=' };
    if (credentials.kind === 'password' && credentials.secret === PASSWORD)
      return { ok: true, who: 'admin', scope: 'admin' };
    if (credentials.kind === 'token' && credentials.secret === TOKEN)
      return { ok: true, who: 'kitchen panel', scope: 'write', token: { id: 'kitchen', expiresAt: null } };
    if (credentials.kind === 'token' && credentials.secret === READ_TOKEN)
      return { ok: true, who: 'wall display', scope: 'read', token: { id: 'wall', expiresAt: null } };
    this.failures.set(clientIp, failures + 1);
    return { ok: false, status: 401, message: 'wrong password or token' };
  }
}

/** Timers that fire only when {@link advance} moves the manual clock past them. */
export class ManualTimers implements Timers {
  private seq = 0;
  private readonly pending = new Map<number, { at: number; callback: () => void }>();

  constructor(readonly clock: ManualClock) {}

  setTimeout(callback: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { at: this.clock.now() + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Moves time forward, running each timer that falls due at its own time, in order. */
  advance(ms: number): void {
    const end = this.clock.now() + ms;
    for (;;) {
      let nextId = 0;
      let nextAt = Infinity;
      for (const [id, timer] of this.pending) {
        if (timer.at <= end && timer.at < nextAt) {
          nextId = id;
          nextAt = timer.at;
        }
      }
      if (nextId === 0) break;
      const timer = this.pending.get(nextId)!;
      this.pending.delete(nextId);
      if (timer.at > this.clock.now()) this.clock.set(timer.at);
      timer.callback();
    }
    this.clock.set(end);
  }
}

export const START = Date.parse('2026-11-22T10:00:00Z');
export const SITE_ID = 4242;

export interface StreamServer {
  /** `ws://127.0.0.1:PORT/api/websocket` */
  wsUrl: string;
  /** `http://127.0.0.1:PORT` */
  httpUrl: string;
  /** For the Phoenix client, which appends `/websocket` itself. */
  phoenixEndpoint: string;
  port: number;
  registry: TopicRegistry;
  writes: WriteService;
  audit: AuditLog;
  clock: ManualClock;
  timers: ManualTimers;
  endpoint: WebsocketEndpoint;
  /** Values the write handlers received. */
  written: Array<string | number>;
  /** Stops the HTTP server and the stream, then starts both again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 (ephemeral port) with the REST app and the stream, a real
 * registry holding a small site, and a WriteService auditing into SQLite in a temp dir.
 */
export async function startStream(overrides: Partial<WebsocketOptions> = {}): Promise<StreamServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'heliograph-ws-'));
  const db: Db = await openDatabase(join(dataDir, 'heliograph.db'));
  await migrate(db, auditMigrations);
  const clock = new ManualClock(START);
  const timers = new ManualTimers(clock);
  const registry = new TopicRegistry(clock);
  const audit = new AuditLog(db, clock, new DbWriter());
  const writes = new WriteService(registry, audit, clock);
  const written: Array<string | number> = [];
  defineSite(registry, writes, written);
  const auth = new OnePasswordAuthenticator();
  const system = new SystemInfo({
    clock,
    siteId: SITE_ID,
    version: '0.1.0-test',
    dataDir,
    startedAt: START,
    cpuTemperature: () => Promise.resolve(41),
  });

  let running: RunningServer;
  let endpoint: WebsocketEndpoint;
  const start = async (port: number) => {
    const app = createApp({ auth, realm: REALM, routers: [], publicRouters: [upgradeRequiredRoutes()] });
    running = await listen(app, '127.0.0.1', port);
    endpoint = attachWebsocket({
      app,
      server: running.server,
      registry,
      auth,
      realm: REALM,
      writes,
      system,
      clock,
      timers,
      // Tests that count frames over long spans of manual time would see refreshes; the
      // refresh's own test turns it on.
      refreshMs: 0,
      ...overrides,
    });
  };
  const stopServer = async () => {
    await endpoint.close();
    await running.close();
  };
  await start(0);
  const port = running!.port;
  const server: StreamServer = {
    wsUrl: `ws://127.0.0.1:${port}/api/websocket`,
    httpUrl: `http://127.0.0.1:${port}`,
    phoenixEndpoint: `ws://127.0.0.1:${port}/api`,
    port,
    registry,
    writes,
    audit,
    clock,
    timers,
    get endpoint() {
      return endpoint;
    },
    written,
    restart: async () => {
      await stopServer();
      await start(port);
    },
    stop: async () => {
      await stopServer();
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

/**
 * The stream server of a describe block: started before its tests (before each test with
 * `each`), stopped after. Call it in the block; `server()` is the one running.
 */
export function useStream(options: { each?: boolean; overrides?: Partial<WebsocketOptions> } = {}): () => StreamServer {
  let server: StreamServer | undefined;
  const [start, stop] = options.each ? [beforeEach, afterEach] : [before, after];
  start(async () => {
    server = await startStream(options.overrides);
  });
  stop(() => server!.stop());
  return () => server!;
}

/** A topic's metadata the way the plugin host would build it. */
export function meta(topic: string, fields: Partial<TopicMeta> = {}): TopicMeta {
  return topicMeta(topic, { name: topic.split('/')[1]!.replace(/_/g, ' '), ...fields });
}

const OUTPUT_PRIORITIES = ['Solar first', 'Utility first', 'SBU'];

function defineSite(registry: TopicRegistry, writes: WriteService, written: Array<string | number>): void {
  const topics: Array<[TopicMeta, MetricValue]> = [
    [meta('total/pv_power'), 3200],
    [meta('total/load_power'), 900],
    [meta('total/grid_power'), -2300],
    [meta('battery_1/voltage', { unit: 'V', recorded: false }), 52.1],
    [meta('battery_1/state_of_charge', { unit: '%', recorded: false }), 64],
    [meta('battery_1/cell_temperature_max', { unit: '°C', recorded: false }), 24.5],
    [meta('inverter_1/pv_power'), 3200],
    [meta('inverter_1/device_mode', { unit: '', type: 'string' }), 'Solar first'],
    [meta('inverter_1/serial_number', { unit: '', type: 'string', group: 'Info', recorded: false }), 'HG-0001'],
    [writableMeta('inverter_1/output_source_priority', { options: OUTPUT_PRIORITIES }), 'Solar first'],
    [writableMeta('inverter_1/max_charge_current', { min: 0, max: 100, step: 10 }, 'A'), 50],
    [meta('weather/cloud_cover', { unit: '%' }), 40],
  ];
  for (const [m, value] of topics) registry.define(m, value);
  const signal = new AbortController().signal;
  const write = ({ value }: { value: string | number }) => {
    if (value === 100) return Promise.reject(new DeviceRefusedError({ answer: 'device busy' }));
    written.push(value);
    return Promise.resolve();
  };
  const setting = (name: string, fields: { options: string[] } | { min: number; max: number; step: number }) =>
    ({ name, displayName: name, write, ...fields }) as SettingDeclaration;
  writes.register('inverter_1/output_source_priority', {
    setting: setting('output_source_priority', { options: OUTPUT_PRIORITIES }),
    onError: () => {},
    signal,
  });
  writes.register('inverter_1/max_charge_current', {
    setting: setting('max_charge_current', { min: 0, max: 100, step: 10 }),
    onError: () => {},
    signal,
  });
}

function writableMeta(topic: string, writable: Writable, unit = ''): TopicMeta {
  return meta(topic, {
    group: 'Settings',
    unit,
    type: 'options' in writable ? 'string' : 'number',
    recorded: false,
    writable,
  });
}

/** Publishes values in one synchronous run (one tick) and waits until listeners have it. */
export function publish(registry: TopicRegistry, values: Record<string, MetricValue>): Promise<void> {
  for (const [topic, value] of Object.entries(values)) {
    const state: TopicState | undefined = registry.get(topic);
    if (!state) return Promise.reject(new Error(`test site has no topic ${topic}`));
    registry.publish(state, value);
  }
  registry.flush();
  return Promise.resolve();
}

/** Topics the default filter selects on the test site, in snapshot order. */
export const DEFAULT_SELECTED = [
  'battery_1/state_of_charge',
  'battery_1/voltage',
  'inverter_1/device_mode',
  'inverter_1/pv_power',
  'total/grid_power',
  'total/load_power',
  'total/pv_power',
];
