/*
 * The plugin context inside a plugin's own process: the same SDK surface, each call sent
 * over the IPC channel to the host-side context. Calls that answer nothing (publish, log) are sent and
 * forgotten; those that return a promise (record, store) wait for the host's reply. Jobs and
 * write handlers stay here under ids: the host's scheduler and write service call them by id,
 * so back-off, status and audit work exactly as for in-process plugins.
 */
import type { Got } from 'got';
import {
  unavailableIntegration,
  type Device,
  type DeviceDeclaration,
  type Disposer,
  type JobOptions,
  type PluginContext,
  type PluginLogger,
  type SettingDeclaration,
  type SiteApi,
  type TopicFilter,
} from '@heliograph/plugins-sdk';
import type { AnySettingWrite } from '../../../writes/setting-values.js';
import { createBoundedHttp } from '../../context/bounded-got.js';
import {
  errorToFields,
  type JobSchedule,
  type ToWorker,
  type WorkerDeclaration,
  type WorkerStart,
} from './protocol.js';
import type { WorkerPort } from './process-port.js';
import { Outbox } from './outbox.js';
import { ctxMethods, type CtxMethods } from '../../context/methods.js';

type SiteListener = (message: Extract<ToWorker, { type: 'site-values' | 'site-write' }>) => unknown;

/** A filter as plain data for the message (the plugin's array may be frozen or sparse). */
function copyFilter(filter: TopicFilter | undefined): string | string[] | undefined {
  return filter === undefined || typeof filter === 'string' ? filter : [...filter];
}

type Handler = (args: { value?: unknown; label?: string; signal: AbortSignal }) => Promise<void> | void;

export class WorkerContext {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  /** Job runs and write handlers by the id the host calls them with. */
  private readonly handlers = new Map<number, Handler>();
  private readonly declared = new Set<string>();
  /** `ctx.site.subscribe` / `onWrite` listeners by the id the host sends their messages with. */
  private readonly siteListeners = new Map<number, SiteListener>();
  readonly abort = new AbortController();
  /** Everything sent to the host, gathered per run (see Outbox). */
  readonly port: Outbox;

  constructor(
    port: WorkerPort,
    private readonly start: WorkerStart,
  ) {
    this.port = new Outbox(port);
  }

  build(): PluginContext {
    const devices: readonly Device[] = this.start.devices.map((d) => Object.freeze({ ...d }));
    const send = (message: unknown) => this.port.postMessage(message);
    const log = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string, fields?: Record<string, unknown>) =>
      send({ type: 'log', level, message: String(message), fields: fields && cloneable(fields) });
    const logger: PluginLogger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
    let http: Got | undefined;
    const makeHttp = () =>
      (http ??= createBoundedHttp({
        signal: this.abort.signal,
        limits: this.start.http,
        onTimeout: (message) => send({ type: 'http-timeout', message }),
        hosts: this.start.hosts,
        onHostRefused: (host, message) => send({ type: 'http-refused', host, message }),
      }));
    // The plain-data methods (context/methods.ts), each sent to the host by its kind. An
    // event's arguments are copied at once: the plugin may change them before the batch leaves.
    const remote = ctxMethods((method, kind) =>
      kind === 'event'
        ? (...args) => send({ type: 'ctx', method, args: structuredClone(args) })
        : (...args) => this.request({ type: 'ctx', method, args }),
    );
    return {
      instanceId: this.start.instanceId,
      log: logger,
      devices,
      site: this.site(remote.site),
      topics: {
        ...remote.topics,
        declare: (declaration) => this.declare(declaration, devices),
        // Checked here as the host would, so the plugin's call throws where it was made.
        publish: (args) => {
          if (!this.declared.has(args.device))
            throw new Error(`publish for device "${args.device}" before declaring it`);
          remote.topics.publish(args);
        },
        record: (args) => {
          if (!this.declared.has(args.device))
            return Promise.reject(new Error(`record for device "${args.device}" before declaring it`));
          return remote.topics.record(args);
        },
      },
      status: remote.status,
      scheduler: {
        every: (job) =>
          this.schedule(
            {
              kind: 'every',
              name: job.name,
              intervalMs: job.intervalMs,
              immediate: job.immediate,
              timeoutMs: job.timeoutMs,
            },
            job,
          ),
        daily: (job) =>
          this.schedule(
            { kind: 'daily', name: job.name, times: [...job.times], timeZone: job.timeZone, timeoutMs: job.timeoutMs },
            job,
          ),
      },
      forecast: remote.forecast,
      prices: {
        ...remote.prices,
        declare: (args) => {
          const id = this.nextId++;
          send({ type: 'prices-declare', id, args: { ...args } });
          return this.disposer(id);
        },
      },
      integration: unavailableIntegration(
        'not available to a plugin that runs in a process of its own (third-party plugins always do); a bundled integration runs with "isolation": "process-local"',
      ),
      get http() {
        return makeHttp();
      },
      store: remote.store,
      signal: this.abort.signal,
      now: () => Date.now(),
    };
  }

  /** `ctx.topics.declare`: the declaration sent to the host, its write handlers held here under ids. */
  private declare(declaration: DeviceDeclaration, devices: readonly Device[]): Disposer {
    if (!devices.some((d) => d.id === declaration.device)) {
      throw new Error(
        `device "${declaration.device}" is not assigned to instance "${this.start.instanceId}" (assigned: ${devices.map((d) => d.id).join(', ') || 'none'}); assign it in plugins.json`,
      );
    }
    const id = this.nextId++;
    const settings = declaration.settings?.map((s) => this.holdSetting(s));
    const message: WorkerDeclaration = {
      ...declaration,
      metrics: declaration.metrics.map((m) => ({ ...m })),
      identity: declaration.identity && { ...declaration.identity },
      settings,
    };
    this.port.postMessage({ type: 'declare', id, declaration: message });
    this.declared.add(declaration.device);
    return this.disposer(id, () => {
      this.declared.delete(declaration.device);
      for (const s of settings ?? []) this.handlers.delete(s.writeId);
    });
  }

  /** `ctx.site`: reads and writes answered by the host; subscriptions held here under ids. */
  private site(remote: CtxMethods['site']): SiteApi {
    const listen = (type: 'site-subscribe' | 'site-on-write', filter: TopicFilter | undefined, fn: SiteListener) => {
      const id = this.nextId++;
      this.siteListeners.set(id, fn);
      this.port.postMessage({ type, id, filter: filter === undefined ? ['*'] : [filter].flat() });
      return this.disposer(id, () => this.siteListeners.delete(id));
    };
    return {
      ...this.start.site,
      ...remote,
      // A filter as plain data for the message (the plugin's array may be frozen or sparse).
      values: (args) => remote.values(args && { filter: copyFilter(args.filter) }),
      subscribe: (options) =>
        listen(
          'site-subscribe',
          options.filter,
          (m) => m.type === 'site-values' && options.onValues(m.values, { time: m.time }),
        ),
      onWrite: (args) => listen('site-on-write', args.filter, (m) => m.type === 'site-write' && args.handler(m.write)),
    };
  }

  /** Handles a message of the host: a reply to a request, or a call of a held handler. */
  async receive(message: ToWorker): Promise<void> {
    if (message.type === 'site-values' || message.type === 'site-write') {
      const listener = this.siteListeners.get(message.id);
      try {
        listener?.(message);
      } catch (err) {
        this.port.postMessage({
          type: 'log',
          level: 'error',
          message: `the ${message.type === 'site-values' ? 'subscription' : 'onWrite handler'} threw`,
          fields: cloneable({ err }),
        });
      }
      return;
    }
    if (message.type === 'reply') {
      const waiting = this.pending.get(message.call);
      this.pending.delete(message.call);
      if (message.ok) waiting?.resolve(message.value);
      else waiting?.reject(Object.assign(new Error(message.error), message.code ? { code: message.code } : {}));
      return;
    }
    if (message.type !== 'call') return;
    const handler = this.handlers.get(message.id);
    // What the run sends leaves with its reply, as one batch the host applies at once.
    await this.port.hold(async () => {
      try {
        if (!handler)
          throw new Error(
            `no ${message.op === 'run' ? 'job' : 'write handler'} under id ${message.id}: it was disposed`,
          );
        await handler({ ...message.args, signal: this.abort.signal });
        this.port.postMessage({ type: 'reply', call: message.call, ok: true });
      } catch (err) {
        this.port.postMessage({ type: 'reply', call: message.call, ok: false, ...errorToFields(err) });
      }
    });
  }

  private holdSetting(
    setting: SettingDeclaration,
  ): Record<string, unknown> & { name: string; displayName: string; writeId: number } {
    const writeId = this.nextId++;
    this.handlers.set(writeId, (args) =>
      (setting.write as AnySettingWrite).call(setting, args as Parameters<AnySettingWrite>[0]),
    );
    // eslint-disable-next-line @typescript-eslint/unbound-method -- `write` is only split off to be left out, never called
    const { write: _write, ...described } = setting;
    const options = setting.options?.map((o) => (typeof o === 'string' ? o : { ...o }));
    return { ...described, options, writeId };
  }

  private schedule(job: JobSchedule, options: JobOptions): Disposer {
    const id = this.nextId++;
    this.handlers.set(id, ({ signal }) => options.run({ signal }));
    this.port.postMessage({ type: 'schedule', id, job });
    return this.disposer(id);
  }

  private disposer(id: number, also?: () => void): Disposer {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.handlers.delete(id);
      also?.();
      this.port.postMessage({ type: 'dispose', id });
    };
  }

  private request(message: Record<string, unknown>): Promise<unknown> {
    const call = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(call, { resolve, reject });
      this.port.sendNow({ ...message, call });
    });
  }
}

/** Log fields as plain data: an Error becomes its message, anything else that cannot be cloned a string. */
function cloneable(fields: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(fields, (_k, v: unknown) =>
      v instanceof Error ? v.message : typeof v === 'bigint' ? String(v) : v,
    ),
  ) as Record<string, unknown>;
}
