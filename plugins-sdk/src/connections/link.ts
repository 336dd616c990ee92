/*
 * One physical link (a TCP connection or a serial port) and its request queue: one request
 * on the wire at a time, a timeout per request, abort, and reconnection with a doubling,
 * capped back-off after the stream fails or closes. Shared by several users through
 * `openStreamLink` (registry.ts); this file knows nothing about who uses it.
 */
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { NoAnswerError } from '../errors.js';
import { describeTransport, type TransportSpec } from './spec.js';
import { openTransport, type SerialBinding } from './transport.js';

/**
 * How one request finds its reply in the bytes that come back.
 *
 * @example
 * // A reply is one line ending in CR.
 * const reply = await link.request(Buffer.from('QPIGS\r'), { complete: (buf) => buf.indexOf(0x0d) + 1 || -1, timeoutMs: 1500 });
 */
export interface LinkRequestOptions {
  /** Length of a complete reply at the start of `buf`, or -1 while more bytes are needed. */
  complete(buf: Buffer): number;
  /**
   * Whether a complete frame is the awaited reply: `true`, or `false` / a short reason
   * ("bad CRC", "wrong transaction id") when it is not. A frame that fails is counted in
   * `stats.badFrames` and skipped; the request keeps waiting for its reply until its
   * timeout, which then says the device answered with malformed frames (and the last
   * reason) instead of "no answer". Default: every frame is accepted.
   */
  check?(frame: Buffer): boolean | string;
  /**
   * How many times the request is written again when a frame failed `check`: for devices
   * that answer each request once (PI30, Pylontech RS485) and send nothing more after a
   * corrupted reply. Each resend is counted in `stats.requests`. Default 0: keep waiting.
   */
  resendOnBadFrame?: number;
  /** How long to wait for the reply once the request's turn came. */
  timeoutMs: number;
  /** Aborts the request: it leaves the queue, or stops waiting for its reply. */
  signal?: AbortSignal;
}

/**
 * Counters of one physical link, shared by all its users.
 *
 * @example
 * console.log(`${link.stats.badFrames} bad frames skipped`);
 */
export interface LinkStats {
  /** Requests written to the wire. */
  requests: number;
  /** Requests that got no reply in time. */
  timeouts: number;
  /** Complete frames skipped as not the awaited reply (bad CRC, wrong transaction id, ...). */
  badFrames: number;
  /** Times the stream was opened again after it failed or closed. */
  reconnects: number;
  /** Frames the device sent on its own (a logger's heartbeats), answered and not counted as bad. */
  unsolicited: number;
}

/**
 * Frames a device sends on its own, between or before replies (a Solarman logger's
 * heartbeats): recognised before any reply, answered, and never taken for a reply or
 * counted as a bad frame.
 *
 * @example
 * { length: solarmanUnsolicitedLength, answer: (frame) => solarmanTimeAnswer(frame, loggerSerial) }
 */
export interface UnsolicitedFrames {
  /** Length of such a frame at the start of `buf`, 0 when `buf` does not start with one, -1 while more bytes are needed. */
  length(buf: Buffer): number;
  /** What to send back, if anything. */
  answer(frame: Buffer): Buffer | undefined;
}

/**
 * Back-off between connection attempts: the first retry after `initialDelayMs`, each
 * further one after twice the previous delay, at most `maxDelayMs`. Reset once connected.
 *
 * @example
 * openModbus(spec, { reconnect: { initialDelayMs: 500, maxDelayMs: 60_000 } });
 */
export interface ReconnectOptions {
  /** Default 250 ms. */
  initialDelayMs?: number;
  /** Default 30 s. */
  maxDelayMs?: number;
}

/**
 * Options of the physical link; the first user to open a link sets them.
 *
 * @example
 * openStreamLink(spec, { reconnect: { maxDelayMs: 10_000 } });
 */
export interface LinkOptions {
  reconnect?: ReconnectOptions;
  /** A serialport binding to use instead of the native one (tests: `@serialport/binding-mock`). */
  binding?: SerialBinding;
  /** Frames the device sends on its own, to answer and skip. */
  unsolicited?: UnsolicitedFrames;
}

interface Pending {
  frame: Buffer;
  options: LinkRequestOptions;
  resolve(reply: Buffer): void;
  reject(error: unknown): void;
  timer?: NodeJS.Timeout;
  sent: boolean;
  done: boolean;
  /** Times the frame was written again after a bad reply. */
  resends: number;
  /** Frames that failed `check`, and the last one's reason. */
  badFrames: number;
  lastBad?: string;
  onAbort?: () => void;
}

/**
 * Events of a link: `connect` once the stream is open, `disconnect` (with why) when it is lost.
 *
 * @example
 * link.on('disconnect', (reason) => ctx.status.error({ message: reason }));
 * link.on('connect', () => ctx.status.ok());
 */
export interface LinkEvents {
  connect: [];
  disconnect: [reason: string];
}

/** One physical link with its queue. Users reach it through a `StreamLink` handle. */
export class Link extends EventEmitter<LinkEvents> {
  readonly stats: LinkStats = { requests: 0, timeouts: 0, badFrames: 0, reconnects: 0, unsolicited: 0 };
  readonly description: string;
  private stream: Duplex | undefined;
  private lastError = 'not connected yet';
  private readonly queue: Pending[] = [];
  private current: Pending | undefined;
  private buffer: Buffer = Buffer.alloc(0);
  private delayMs: number;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private openedBefore = false;

  constructor(
    readonly spec: TransportSpec,
    readonly options: LinkOptions,
  ) {
    super();
    this.description = describeTransport(spec);
    this.initialDelayMs = options.reconnect?.initialDelayMs ?? 250;
    this.maxDelayMs = options.reconnect?.maxDelayMs ?? 30_000;
    this.delayMs = this.initialDelayMs;
    this.connect();
  }

  /** Whether the stream is open now. */
  get connected(): boolean {
    return this.stream !== undefined;
  }

  async request(frame: Buffer, options: LinkRequestOptions): Promise<Buffer> {
    if (this.closed) throw new Error(`${this.description}: link released`);
    const { signal } = options;
    signal?.throwIfAborted();
    return new Promise<Buffer>((resolve, reject) => {
      const pending: Pending = { frame, options, resolve, reject, sent: false, done: false, resends: 0, badFrames: 0 };
      if (signal) {
        pending.onAbort = () => this.finish(pending, { error: signal.reason });
        signal.addEventListener('abort', pending.onAbort, { once: true });
      }
      this.queue.push(pending);
      this.pump();
    });
  }

  /** Closes the stream for good and fails every queued request. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const error = new NoAnswerError({ message: `${this.description}: link closed` });
    if (this.current) this.finish(this.current, { error });
    for (const pending of [...this.queue]) this.finish(pending, { error });
    this.stream?.destroy();
    this.stream = undefined;
  }

  private pump(): void {
    if (this.current || this.closed) return;
    const next = this.queue.shift();
    if (!next) return;
    this.current = next;
    const { timeoutMs } = next.options;
    next.timer = setTimeout(() => {
      const message = !next.sent
        ? `${this.description}: not connected (${this.lastError})`
        : next.badFrames > 0
          ? `${this.description}: malformed reply (${next.lastBad ?? 'not the awaited reply'}${next.badFrames > 1 ? `, ${next.badFrames} frames` : ''}), no valid answer within ${timeoutMs} ms`
          : `${this.description}: no answer within ${timeoutMs} ms`;
      this.stats.timeouts++;
      this.finish(next, { error: new NoAnswerError({ message, timeoutMs }) });
    }, timeoutMs);
    if (this.stream) this.send(next, this.stream);
  }

  private send(pending: Pending, stream: Duplex): void {
    this.buffer = Buffer.alloc(0);
    pending.sent = true;
    this.stats.requests++;
    stream.write(pending.frame);
  }

  private onData(chunk: Buffer): void {
    const pending = this.current;
    const { unsolicited } = this.options;
    if (!pending?.sent && !unsolicited) return; // nobody is waiting: a late reply to an abandoned request
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length > 0) {
      if (unsolicited && this.takeUnsolicited(unsolicited)) continue;
      if (unsolicited && this.buffer.length > 0 && unsolicited.length(this.buffer) < 0) return;
      if (!pending?.sent) {
        this.buffer = Buffer.alloc(0);
        return;
      }
      const length = pending.options.complete(this.buffer);
      if (length <= 0) return;
      const frame = Buffer.from(this.buffer.subarray(0, length));
      this.buffer = this.buffer.subarray(length);
      const verdict = pending.options.check ? pending.options.check(frame) : true;
      if (verdict !== true) {
        this.stats.badFrames++;
        pending.badFrames++;
        pending.lastBad = typeof verdict === 'string' ? verdict : undefined;
        if (pending.resends < (pending.options.resendOnBadFrame ?? 0) && this.stream) {
          pending.resends++;
          this.send(pending, this.stream);
          return;
        }
        continue;
      }
      this.finish(pending, { reply: frame });
      return;
    }
  }

  /** Answers and drops a frame the device sent on its own at the start of the buffer; whether there was one. */
  private takeUnsolicited(unsolicited: UnsolicitedFrames): boolean {
    const length = unsolicited.length(this.buffer);
    if (length <= 0) return false;
    const frame = Buffer.from(this.buffer.subarray(0, length));
    this.buffer = this.buffer.subarray(length);
    this.stats.unsolicited++;
    const answer = unsolicited.answer(frame);
    if (answer) this.stream?.write(answer);
    return true;
  }

  private finish(pending: Pending, outcome: { reply: Buffer } | { error: unknown }): void {
    if (pending.done) return;
    pending.done = true;
    clearTimeout(pending.timer);
    if (pending.onAbort) pending.options.signal?.removeEventListener('abort', pending.onAbort);
    if (this.current === pending) this.current = undefined;
    else this.queue.splice(this.queue.indexOf(pending), 1);
    if ('reply' in outcome) pending.resolve(outcome.reply);
    else pending.reject(outcome.error);
    this.pump();
  }

  private connect(): void {
    openTransport(this.spec, this.options.binding).then(
      (stream) => this.onOpen(stream),
      (error: unknown) => {
        this.lastError = errorText(error);
        this.scheduleReconnect();
      },
    );
  }

  private onOpen(stream: Duplex): void {
    if (this.closed) {
      stream.destroy();
      return;
    }
    if (this.openedBefore) this.stats.reconnects++;
    this.openedBefore = true;
    this.stream = stream;
    this.delayMs = this.initialDelayMs;
    this.lastError = 'closed by the other end';
    stream.on('data', (chunk: Buffer) => this.onData(chunk));
    stream.on('error', (error) => (this.lastError = errorText(error)));
    // A serial port closed by a disconnect passes its error here (a socket passes a boolean).
    stream.on('close', (why?: unknown) => {
      if (why instanceof Error) this.lastError = errorText(why);
      this.onClose(stream);
    });
    this.emit('connect');
    if (this.current && !this.current.sent) this.send(this.current, stream);
  }

  private onClose(stream: Duplex): void {
    if (this.stream !== stream) return;
    this.stream = undefined;
    if (this.closed) return;
    const reason = `${this.description}: connection lost (${this.lastError})`;
    this.emit('disconnect', reason);
    if (this.current?.sent) this.finish(this.current, { error: new NoAnswerError({ message: reason }) });
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const delay = this.delayMs;
    this.delayMs = Math.min(this.delayMs * 2, this.maxDelayMs);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
