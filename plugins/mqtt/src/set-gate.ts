/**
 * What stands between `<prefix>/<topic>/set` and the service's write path: a size limit on
 * the value, a write budget per setting, and a log that summarises refusals instead of
 * writing one line each.
 *
 * - A value longer than MAX_SET_BYTES is refused with a short reason that does not repeat
 *   it (a 1 MiB value would otherwise come back twice over in the answer and the log).
 * - Each setting has a bucket of its own (SET_BURST at once, SET_RATE per second after
 *   that), so a flood of writes to one topic cannot use up the budget of the others; topics
 *   that are not settings share one bucket. MQTT 3.1.1 does not tell a subscriber who
 *   published, so a limit per broker client is the broker's job (its ACLs), not the bridge's.
 * - Refusals are logged once when they start, then as one summary a minute with counts by
 *   reason and the last one, every line capped to LOG_TEXT_LIMIT characters.
 */
import type { WriteResult } from '@heliograph/plugins-sdk';

export const MAX_SET_BYTES = 1024;
export const SET_BURST = 5;
export const SET_RATE = 1;
/** Buckets kept at most (one per setting; far more than any device has). */
const MAX_BUCKETS = 2000;
const SUMMARY_EVERY_MS = 60_000;
export const LOG_TEXT_LIMIT = 200;

/** Text cut to `limit` characters, saying how much was cut. */
export function capText(text: string, limit = LOG_TEXT_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}... (${text.length - limit} more characters)`;
}

interface Bucket {
  tokens: number;
  at: number;
}

export type Refusal = 'too large' | 'rate limit' | 'refused by the service';

export class SetGate {
  private readonly buckets = new Map<string, Bucket>();
  private counts = new Map<Refusal, number>();
  private last = '';
  private summaryAt = -Infinity;

  constructor(
    private readonly now: () => number,
    private readonly isSetting: (topic: string) => boolean,
    private readonly log: (line: string) => void,
  ) {}

  /** Why a `/set` message is refused before it reaches the write path, or null to go on. */
  check(topic: string, bytes: number): { refusal: Refusal; message: string } | null {
    if (bytes > MAX_SET_BYTES)
      return { refusal: 'too large', message: `value too large: ${bytes} bytes, at most ${MAX_SET_BYTES}` };
    const wait = this.take(this.isSetting(topic) ? topic : '');
    if (wait > 0)
      return {
        refusal: 'rate limit',
        message: `too many writes to this topic: at most ${SET_BURST} at once and ${SET_RATE} per second; try again in ${wait} s`,
      };
    return null;
  }

  /** Counts a refusal and logs: the first of a run at once, later ones as a summary a minute. */
  refused(topic: string, refusal: Refusal, message: string): void {
    this.counts.set(refusal, (this.counts.get(refusal) ?? 0) + 1);
    this.last = capText(`${capText(topic, 100)}: ${message}`);
    const now = this.now();
    if (now - this.summaryAt < SUMMARY_EVERY_MS) return;
    this.flush();
    this.summaryAt = now;
  }

  /** Logs what was refused since the last line (at stop, too). */
  flush(): void {
    const total = [...this.counts.values()].reduce((a, b) => a + b, 0);
    if (total === 0) return;
    const byReason = [...this.counts].map(([reason, n]) => `${n} ${reason}`).join(', ');
    this.log(
      total === 1
        ? `MQTT write refused: ${this.last}`
        : `${total} MQTT writes refused (${byReason}); the last: ${this.last}`,
    );
    this.counts = new Map();
  }

  /** Takes one write from the topic's bucket: 0 when allowed, else whole seconds until one is. */
  private take(key: string): number {
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= MAX_BUCKETS) this.buckets.clear();
      this.buckets.set(key, (bucket = { tokens: SET_BURST, at: now }));
    }
    bucket.tokens = Math.min(SET_BURST, bucket.tokens + ((now - bucket.at) / 1000) * SET_RATE);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / SET_RATE));
  }
}

/** What `handleSet` needs of the bridge: its prefix, its gate, the service's write path and the answer topic. */
export interface SetPath {
  prefix: string;
  gate: SetGate;
  write(request: { topic: string; value: string }): Promise<WriteResult>;
  respond(response: Record<string, unknown>, qos?: 0 | 1): Promise<void>;
}

/**
 * `<prefix>/<topic>/set`: the write, then its result on `<prefix>/set_response`. Checked
 * first against the size limit and the topic's write budget; a refusal's answer never
 * repeats a value that was too large. Messages on other topics are left alone.
 */
export async function handleSet(path: SetPath, mqttTopic: string, payload: Buffer): Promise<void> {
  const { prefix, gate } = path;
  if (!mqttTopic.startsWith(`${prefix}/`) || !mqttTopic.endsWith('/set')) return;
  const topic = mqttTopic.slice(prefix.length + 1, -'/set'.length);
  const gated = gate.check(topic, payload.length);
  if (gated) {
    gate.refused(topic, gated.refusal, gated.message);
    // At QoS 0: a flood's refusals are answered without an acknowledgement each.
    return path.respond({ topic: capText(topic), ok: false, message: gated.message }, 0);
  }
  const value = payload.toString('utf8');
  const result = await path.write({ topic, value });
  if (!result.ok) gate.refused(topic, 'refused by the service', result.message);
  await path.respond(
    result.ok ? { topic, value, ok: true } : { topic, value, ok: false, message: capText(result.message) },
  );
}
