/*
 * The plugin context inside a plugin's own process: the same SDK surface, each call sent
 * over the IPC channel to the host-side context. Calls that answer nothing (publish, log) are sent and
 * forgotten; those that return a promise (record, store) wait for the host's reply. The
 * functions a method hands over (jobs, write handlers, subscriptions: context/methods.ts) stay
 * here under ids: the host's scheduler and write service call them by id, so back-off, status
 * and audit work exactly as for in-process plugins.
 */
import type { Got } from 'got';
import {
  unavailableIntegration,
  type Device,
  type Disposer,
  type PluginContext,
  type PluginLogger,
  type TopicFilter,
} from '@heliograph/plugins-sdk';
import { createBoundedHttp } from '../../context/bounded-got.js';
import { errorToFields, type ToWorker, type WorkerStart } from './protocol.js';
import type { WorkerPort } from './process-port.js';
import { Outbox } from './outbox.js';
import { ctxMethods, withCallbacks, type CtxMethod } from '../../context/methods.js';

/** A filter as plain data for the message (the plugin's array may be frozen or sparse). */
function copyFilter(filter: TopicFilter | undefined): string | string[] | undefined {
  return filter === undefined || typeof filter === 'string' ? filter : [...filter];
}

/** A function the plugin handed over, and what a log of its failure calls it. */
interface Held {
  run(...args: unknown[]): unknown;
  name: string;
}

export class WorkerContext {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  /** The plugin's functions (job runs, write handlers, subscriptions) by the id the host calls them with. */
  private readonly held = new Map<number, Held>();
  private readonly declared = new Set<string>();
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
    // The methods of context/methods.ts, each sent to the host by its kind. An event's and a
    // registration's arguments are copied at once: the plugin may change them before the batch leaves.
    const remote = ctxMethods((method, kind) =>
      kind === 'event'
        ? (...args) => send({ type: 'ctx', method, args: structuredClone(args) })
        : kind === 'call'
          ? (...args) => this.request({ type: 'ctx', method, args })
          : (...args) => this.register(method, args),
    );
    return {
      instanceId: this.start.instanceId,
      log: logger,
      devices,
      site: {
        ...this.start.site,
        ...remote.site,
        values: (args) => remote.site.values(args && { filter: copyFilter(args.filter) }),
      },
      topics: {
        ...remote.topics,
        // Checked here as the host would, so the plugin's call throws where it was made.
        declare: (declaration) => {
          if (!devices.some((d) => d.id === declaration.device)) {
            throw new Error(
              `device "${declaration.device}" is not assigned to instance "${this.start.instanceId}" (assigned: ${devices.map((d) => d.id).join(', ') || 'none'}); assign it in plugins.json`,
            );
          }
          const dispose = remote.topics.declare(declaration);
          this.declared.add(declaration.device);
          return () => {
            this.declared.delete(declaration.device);
            dispose();
          };
        },
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
      scheduler: remote.scheduler,
      forecast: remote.forecast,
      prices: remote.prices,
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

  /**
   * A method that hands over functions: each held here under an id the host calls it with,
   * the rest of its arguments sent; its disposer lets go of them and tells the host.
   */
  private register(method: CtxMethod, args: unknown[]): Disposer {
    const id = this.nextId++;
    const ids: number[] = [];
    const sent = withCallbacks(method, args, (value, holder, { at }) => {
      const held = this.nextId++;
      ids.push(held);
      // Called as the plugin would call it, on what holds it (a setting's `write`, a job's `run`).
      const run = (...a: unknown[]) => (value as (...a: unknown[]) => unknown).apply(holder, a);
      this.held.set(held, { run, name: `${method}'s ${at}` });
      return held;
    });
    this.port.postMessage({ type: 'ctx', method, args: structuredClone(sent), id });
    return this.disposer(id, () => ids.forEach((held) => this.held.delete(held)));
  }

  /** Handles a message of the host: a reply to a request, or a call of a held handler. */
  async receive(message: ToWorker): Promise<void> {
    if (message.type === 'callback') {
      const held = this.held.get(message.id);
      if (!held) return;
      try {
        held.run(...message.args);
      } catch (err) {
        this.port.postMessage({
          type: 'log',
          level: 'error',
          message: `${held.name} threw`,
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
    const held = this.held.get(message.id);
    // What the run sends leaves with its reply, as one batch the host applies at once.
    await this.port.hold(async () => {
      try {
        if (!held) throw new Error(`nothing held under id ${message.id}: it was disposed`);
        // The host's signal stayed behind (it does not clone): the worker's takes its place.
        const [first, ...rest] = message.args;
        await held.run({ ...(first as object), signal: this.abort.signal }, ...rest);
        this.port.postMessage({ type: 'reply', call: message.call, ok: true });
      } catch (err) {
        this.port.postMessage({ type: 'reply', call: message.call, ok: false, ...errorToFields(err) });
      }
    });
  }

  private disposer(id: number, also?: () => void): Disposer {
    let done = false;
    return () => {
      if (done) return;
      done = true;
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
