import type { MetricValue, SettingDeclaration } from '@heliograph/plugins-sdk';
import type { Clock } from '../clock.js';
import { SafeEmitter } from '../events.js';
import { createLogger } from '../log.js';
import type { TopicRegistry, TopicState } from '../topics/registry.js';
import { capText, type AuditEntry, type AuditLog, type WriteVia } from './audit.js';
import { BatteryControllers, controlledBattery, secondControllerMessage } from './battery-controllers.js';
import { WRITE_BURST, WRITE_RATE, WriteRateLimiter } from './rate-limit.js';
import {
  callWrite,
  parseWrittenValue,
  writeFailureMessage,
  type ParsedWrite,
  type WrittenValue,
} from './setting-values.js';

const log = createLogger('writes');

export interface WriteRequest {
  topic: string;
  /** Text from a client (REST, WebSocket, MQTT); a plugin's `ctx.site.write` keeps its type. */
  value: WrittenValue;
  /**
   * Other settings of the same device written with this one (`ctx.site.write`'s `together`,
   * by setting name): each validated against its own declaration, all or nothing, as one
   * write (one rate-limit token, one audit entry under `topic`, one call of `topic`'s handler
   * with the companions' values as `together`).
   */
  together?: Record<string, WrittenValue>;
  /** `admin` for the password, else the token's name. */
  who: string;
  via: WriteVia;
  /**
   * The plugin instance that writes as a controller (`ctx.site.write`): a battery's
   * `battery_control_*` written this way is that instance's until it stops (battery-controllers.ts).
   */
  controller?: string;
}

/** A refusal with `retryAfterS` is the rate limit's: REST answers 429 with Retry-After. */
export type WriteOutcome = { ok: true } | { ok: false; message: string; retryAfterS?: number };

interface Handler {
  setting: SettingDeclaration;
  /** The plugin instance that declared the setting (its driver). */
  owner?: string;
  /** Tells the owning plugin's status that its handler failed. */
  onError(message: string): void;
  signal: AbortSignal;
}

/** Every audited write attempt, as the audit keeps it (for `ctx.site.onWrite`). */
export interface WriteEvents {
  written: (entry: AuditEntry) => void;
  /** A write refused, whoever refused it (the rate limit, the declaration, the device): the alerts. */
  refused: (topic: string, message: string) => void;
}

/** How long a device may take to confirm a write. */
export const WRITE_TIMEOUT_MS = 10_000;

/**
 * The one path every write takes (REST and WebSocket): validate against the setting's
 * declaration, hand the converted value to the plugin's handler, wait for the device to
 * confirm, and audit the attempt whatever its outcome. Writes to one topic run one at a
 * time, so a burst of writes reaches the device in order. Each client's writes are rate
 * limited first (rate-limit.ts); refusals by the limit are logged, not audited one by one.
 */
export class WriteService {
  /** `written` after each attempt the audit records, `refused` after each refusal; listeners cannot break each other. */
  readonly events = new SafeEmitter<WriteEvents>();
  private readonly handlers = new Map<string, Handler>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly limiter: WriteRateLimiter;
  /** When each client was last warned about in the log for its refused writes. */
  private readonly warned = new Map<string, { at: number; refused: number }>();
  /** Who controls which battery: one controller each. */
  readonly controllers = new BatteryControllers();

  constructor(
    private readonly registry: TopicRegistry,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly timeoutMs = WRITE_TIMEOUT_MS,
    /** Each client's write rate; the plugin harness, which has no clients, passes an unlimited one. */
    limiter = new WriteRateLimiter(clock),
  ) {
    this.limiter = limiter;
  }

  register(topic: string, handler: Handler): () => void {
    this.handlers.set(topic, handler);
    return () => {
      if (this.handlers.get(topic) === handler) this.handlers.delete(topic);
    };
  }

  /** A setting's declaration changed (its range, its options): later writes check against it. */
  updateSetting(topic: string, setting: SettingDeclaration): void {
    const handler = this.handlers.get(topic);
    if (handler) handler.setting = setting;
  }

  /** Whether a topic has a write handler (for the test that walks every writable). */
  hasHandler(topic: string): boolean {
    return this.handlers.has(topic);
  }

  /** How many topics have a write in flight or queued (a test waits for 0 before it reads what was written). */
  get topicsWriting(): number {
    return this.queues.size;
  }

  async write(request: WriteRequest): Promise<WriteOutcome> {
    const outcome = await this.writeOrRefuse(request);
    if (!outcome.ok) this.events.emit('refused', request.topic, outcome.message);
    return outcome;
  }

  private async writeOrRefuse(request: WriteRequest): Promise<WriteOutcome> {
    // An integration (the MQTT bridge) writes for many clients it cannot tell apart: its
    // budget is per topic, so a flood on one setting leaves the others theirs.
    const retryAfterS = this.limiter.take(
      request.who.startsWith('plugin:') ? `${request.who} ${request.topic}` : request.who,
    );
    if (retryAfterS > 0) return this.refuseForRate(request, retryAfterS);
    // A together-write waits for the writes of each of its topics and holds them all.
    const topics = [request.topic, ...companionTopics(request)];
    const previous = Promise.all(topics.map((t) => this.queues.get(t) ?? Promise.resolve()));
    const run = previous.then(() => this.writeNow(request));
    const settled = run.catch(() => undefined);
    for (const t of topics) this.queues.set(t, settled);
    void settled.then(() => {
      for (const t of topics) if (this.queues.get(t) === settled) this.queues.delete(t);
    });
    return run;
  }

  /** The rate limit's refusal; logged at most once a minute per client, with how many were refused. */
  private refuseForRate(request: WriteRequest, retryAfterS: number): WriteOutcome {
    const now = this.clock.now();
    const w = this.warned.get(request.who) ?? { at: -Infinity, refused: 0 };
    w.refused++;
    if (now - w.at >= 60_000) {
      log.warn(
        `too many writes from ${request.who}: ${w.refused} refused (limit ${WRITE_BURST} at once, ${WRITE_RATE} per second)`,
      );
      w.at = now;
      w.refused = 0;
    }
    this.warned.set(request.who, w);
    return {
      ok: false,
      message: `too many writes from ${request.who}: at most ${WRITE_BURST} at once and ${WRITE_RATE} per second; try again in ${retryAfterS} s`,
      retryAfterS,
    };
  }

  private async writeNow(request: WriteRequest): Promise<WriteOutcome> {
    const companions = companionTopics(request);
    const oldValue = companions.length > 0 ? this.inWords([request.topic, ...companions]) : this.visible(request.topic);
    const outcome = await this.attempt(request);
    const entry: AuditEntry = {
      time: this.clock.now(),
      who: request.who,
      via: request.via,
      topic: request.topic,
      oldValue,
      newValue: outcome.ok ? outcome.written : capText(attempted(request)),
      result: outcome.ok ? 'ok' : 'error',
      message: outcome.ok ? null : outcome.message,
      ...(request.controller !== undefined && request.controller === this.handlers.get(request.topic)?.owner
        ? { byDriver: true }
        : {}),
    };
    // Answered only once the entry is on disk: a kill after the acknowledgement cannot
    // lose it (docs/api.md, audit).
    await this.audit.add(entry);
    this.events.emit('written', entry);
    return outcome.ok ? { ok: true } : outcome;
  }

  private visible(topic: string): MetricValue {
    const state = this.registry.get(topic);
    return state ? this.registry.visibleValue(state) : null;
  }

  /** Values of several settings as one text: `Charge, 3000 W, 90 %` (the audit's words for a together-write). */
  private inWords(topics: string[], shown?: MetricValue[]): string {
    return topics
      .map((topic, i) => {
        const value = shown ? shown[i] : this.visible(topic);
        const unit = this.registry.get(topic)?.meta.unit;
        return `${String(value)}${unit && typeof value === 'number' ? ` ${unit}` : ''}`;
      })
      .join(', ');
  }

  /** Validates one part of a write: its topic is a writable setting, its value one the declaration allows. */
  private validate(
    topic: string,
    value: WrittenValue,
  ): { ok: true; state: TopicState; handler: Handler; parsed: ParsedWrite } | { ok: false; message: string } {
    const state = this.registry.get(topic);
    if (!state) return { ok: false, message: `unknown topic ${capText(topic)}` };
    const handler = this.handlers.get(topic);
    if (!state.meta.writable || !handler) return { ok: false, message: `${topic} is not writable` };
    const parsed = parseWrittenValue(handler.setting, state.meta.writable, value);
    return parsed.ok ? { ok: true, state, handler, parsed: parsed.write } : parsed;
  }

  private async attempt(
    request: WriteRequest,
  ): Promise<{ ok: true; written: string } | { ok: false; message: string }> {
    const main = this.validate(request.topic, request.value);
    if (!main.ok) return main;
    const { state, handler, parsed } = main;
    // A write the device would not take claims no battery.
    const battery = controlledBattery(request.topic);
    if (battery && request.controller && request.controller !== handler.owner) {
      const claim = this.controllers.claim(battery, request.controller);
      if (!claim.ok) return { ok: false, message: secondControllerMessage(battery, claim.owner, request.controller) };
    }
    // Every companion is checked before anything is written: one refused part refuses the whole write.
    const parts: Array<{ name: string; state: TopicState; parsed: ParsedWrite }> = [];
    for (const [name, value] of Object.entries(request.together ?? {})) {
      const topic = companionTopic(request.topic, name);
      if (topic === request.topic)
        return { ok: false, message: `${name} is the setting written; it cannot be its own companion` };
      const part = this.validate(topic, value);
      if (!part.ok) return { ok: false, message: `${name}: ${part.message}` };
      if (part.handler.owner !== handler.owner)
        return { ok: false, message: `${topic} is not declared by the plugin that declares ${request.topic}` };
      parts.push({ name, state: part.state, parsed: part.parsed });
    }
    const together = parts.length > 0 ? Object.fromEntries(parts.map((p) => [p.name, p.parsed.args.value])) : undefined;
    // A timer of our own rather than AbortSignal.timeout, whose unref'd timer would let a
    // process with nothing else to do exit in the middle of a write.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.timeoutMs);
    const signal = AbortSignal.any([timeout.signal, handler.signal]);
    try {
      await raceAbort(callWrite(handler.setting, parsed, signal, together), signal);
    } catch (err) {
      const message = timeout.signal.aborted
        ? `the device did not answer: no confirmation within ${this.timeoutMs / 1000} s`
        : writeFailureMessage(err);
      handler.onError(message);
      return { ok: false, message };
    } finally {
      clearTimeout(timer);
    }
    this.registry.publish(state, parsed.shown);
    for (const p of parts) this.registry.publish(p.state, p.parsed.shown);
    // A controller that set its battery back to normal has let it go: another (the planner
    // after a charger's hold) may command it now.
    // (Only the mode takes the value normal: its power and target are numbers.)
    if (battery && request.controller && String(parsed.args.value).toLowerCase() === 'normal')
      this.controllers.releaseDevice(battery, request.controller);
    const written =
      parts.length > 0
        ? this.inWords(
            [request.topic, ...parts.map((p) => p.state.meta.topic)],
            [parsed.shown, ...parts.map((p) => p.parsed.shown)],
          )
        : // A client's text as it wrote it; a plugin's (typed) value as clients see it (`charge` → `Charge`).
          request.controller === undefined && typeof request.value === 'string'
          ? request.value
          : String(parsed.shown);
    return { ok: true, written };
  }
}

/** What a refused write asked for, as text: its value, then its companions' (`charge, 9000, 90`). */
function attempted(request: WriteRequest): string {
  return [request.value, ...Object.values(request.together ?? {})].map(String).join(', ');
}

/** The topics of a together-write's companions (on the main topic's device). */
function companionTopics(request: WriteRequest): string[] {
  return Object.keys(request.together ?? {}).map((name) => companionTopic(request.topic, name));
}

/** The topic of the setting `name` on the device of `topic`. */
function companionTopic(topic: string, name: string): string {
  return `${topic.slice(0, topic.indexOf('/'))}/${name}`;
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // Passes on, unchanged, whichever reason ends it first: the abort's or the promise's own.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a pass-through, not a new rejection
    const fail = (reason: unknown) => reject(reason);
    if (signal.aborted) return fail(signal.reason);
    const onAbort = () => fail(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        fail(e);
      },
    );
  });
}
