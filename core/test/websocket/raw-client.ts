import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';
import { PASSWORD } from './harness.js';

/**
 * A frame's payload, as the tests read it: a reply's status and response, a push's metrics or
 * definitions, a write's topic, result or message. Which of them a frame carries depends on its event;
 * a test reads the ones its frame has, and one that is missing fails the assertion reading it.
 */
export interface Payload {
  status: string;
  response: { reason: string } & Record<string, unknown>;
  metrics: Array<{ topic: string; value: unknown } & Record<string, unknown>>;
  definitions: Array<{ topic: string } & Record<string, unknown>>;
  topic: string;
  result: string;
  message: string;
}

/** A received frame in either serializer's form, plus what arrived on the wire. */
export interface Frame {
  joinRef: unknown;
  ref: unknown;
  topic: string;
  event: string;
  payload: Payload;
  raw: unknown;
}

export type Form = 'v1' | 'v2';

/** An HTTP answer to an upgrade that was refused. */
export interface Refusal {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A Phoenix Channels client speaking raw frames, in either form, to see exactly what is on
 * the wire. Frames queue up; {@link take} removes the first one matching, waiting if needed.
 */
export class RawClient {
  private readonly queue: Frame[] = [];
  private readonly waiters: Array<{
    match: (f: Frame) => boolean;
    resolve: (f: Frame) => void;
    reject: (e: Error) => void;
  }> = [];
  private refs = 0;
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(
    readonly ws: WebSocket,
    readonly form: Form,
  ) {
    ws.on('message', (data: Buffer) => this.receive(data.toString('utf8')));
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        for (const w of this.waiters.splice(0))
          w.reject(new Error(`socket closed (${code} ${reason.toString()}) while waiting for a frame`));
        resolve({ code, reason: reason.toString() });
      });
    });
  }

  static async connect(url: string, options: { form?: Form; query?: Record<string, string> } = {}): Promise<RawClient> {
    const form = options.form ?? 'v1';
    const ws = new WebSocket(
      withQuery(url, {
        ...(options.query?.token ? {} : { password: PASSWORD }),
        ...(form === 'v2' ? { vsn: '2.0.0' } : {}),
        ...options.query,
      }),
    );
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new RawClient(ws, form);
  }

  /** Opens an upgrade that the server is expected to refuse; resolves with its HTTP answer. */
  static refused(url: string, query: Record<string, string>): Promise<Refusal> {
    const ws = new WebSocket(withQuery(url, query));
    return new Promise((resolve, reject) => {
      ws.once('open', () => reject(new Error('the upgrade was accepted')));
      ws.once('error', () => {});
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
    });
  }

  /** Sends a frame in this client's form; returns its ref. */
  send(topic: string, event: string, payload: unknown, joinRef: string | null = null): string {
    const ref = String(++this.refs);
    this.sendRaw(this.form === 'v2' ? [joinRef, ref, topic, event, payload] : { topic, event, payload, ref });
    return ref;
  }

  sendRaw(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Sends a request and waits for its `phx_reply`. */
  async request(topic: string, event: string, payload: unknown, joinRef: string | null = null): Promise<Frame> {
    const ref = this.send(topic, event, payload, joinRef);
    return this.take((f) => f.event === 'phx_reply' && f.ref === ref);
  }

  /** Joins `metrics`; returns the reply. */
  join(payload: unknown = {}): Promise<Frame> {
    return this.request('metrics', 'phx_join', payload, 'j1');
  }

  /** Joins `metrics` and takes the join's definition and first data; returns the data. */
  async joinAndSync(payload: unknown = {}): Promise<Frame> {
    const reply = await this.join(payload);
    if (reply.payload.status !== 'ok') throw new Error(`join refused: ${JSON.stringify(reply.payload)}`);
    await this.next('definition');
    return this.next('data');
  }

  /**
   * Waits until everything the server sent before now has arrived: the server answers a
   * heartbeat after writing whatever it had queued for this socket.
   */
  async barrier(): Promise<void> {
    await this.request('phoenix', 'heartbeat', {});
  }

  /** Removes and returns the first queued frame matching, waiting for one if none is queued. */
  take(match: (f: Frame) => boolean = () => true): Promise<Frame> {
    const i = this.queue.findIndex(match);
    if (i >= 0) return Promise.resolve(this.queue.splice(i, 1)[0]!);
    return new Promise((resolve, reject) => this.waiters.push({ match, resolve, reject }));
  }

  /** Waits for the next push of `event` on `metrics`. */
  next(event: string): Promise<Frame> {
    return this.take((f) => f.topic === 'metrics' && f.event === event);
  }

  /** Frames received and not taken yet. */
  pending(event?: string): Frame[] {
    return this.queue.filter((f) => event === undefined || f.event === event);
  }

  close(): void {
    this.ws.close();
  }

  private receive(text: string): void {
    const raw: unknown = JSON.parse(text);
    let frame: Frame;
    if (Array.isArray(raw)) {
      const [joinRef, ref, topic, event, payload] = raw as [unknown, unknown, string, string, Payload];
      frame = { joinRef, ref, topic, event, payload, raw };
    } else {
      const { topic, event, payload, ref } = raw as { topic: string; event: string; payload: Payload; ref: unknown };
      frame = { joinRef: undefined, ref, topic, event, payload, raw };
    }
    const w = this.waiters.findIndex((x) => x.match(frame));
    if (w >= 0) this.waiters.splice(w, 1)[0]!.resolve(frame);
    else this.queue.push(frame);
  }
}

export function withQuery(url: string, query: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
  return u.toString();
}

/** Values of a `data` payload by topic. */
export function valuesOf(frame: Frame): Record<string, unknown> {
  return Object.fromEntries(frame.payload.metrics.map((m) => [m.topic, m.value]));
}

export function topicsOf(frame: Frame, list: 'metrics' | 'definitions' = 'metrics'): string[] {
  return frame.payload[list].map((m) => m.topic);
}
