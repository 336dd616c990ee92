import { assertJsonDepth, formatZodIssue, JsonTooDeepError } from '@heliograph/plugins-sdk';
import { z } from 'zod';
import { MAX_BODY_DEPTH } from '../body.js';

/**
 * Phoenix Channels framing, both serializers: `v2` (query `vsn=2.0.0`) frames are arrays
 * `[join_ref, ref, topic, event, payload]`, `v1` frames are objects
 * `{topic, event, payload, ref}`. A connection is answered in the form it asked for.
 */
export type Form = 'v1' | 'v2';

/** The one channel the stream serves. */
export const CHANNEL = 'metrics';

/** Refs are strings in the official clients; some clients send numbers. Echoed as given. */
export type Ref = string | number | null;

export interface InboundFrame {
  joinRef: Ref;
  ref: Ref;
  topic: string;
  event: string;
  payload: unknown;
}

/** Where a reply goes: the request's topic, ref and join_ref. */
export interface ReplyTarget {
  joinRef: Ref;
  ref: Ref;
  topic: string;
}

export type DecodeResult =
  { ok: true; frame: InboundFrame } | { ok: false; reason: string; target: ReplyTarget | null };

const refSchema = z.union([z.string(), z.number()]).nullable();
const v2Frame = z.tuple([refSchema, refSchema, z.string(), z.string(), z.unknown()]);
const v1Frame = z.object({
  topic: z.string(),
  event: z.string(),
  payload: z.unknown().optional(),
  ref: refSchema.optional(),
  join_ref: refSchema.optional(),
});

export function formOfQuery(query: URLSearchParams): Form {
  return query.get('vsn')?.startsWith('2.') ? 'v2' : 'v1';
}

/** Parses one text frame. A malformed frame keeps whatever ref it had, so it can be answered. */
export function decodeFrame(form: Form, text: string): DecodeResult {
  let raw: unknown;
  try {
    assertJsonDepth(text, MAX_BODY_DEPTH, 'the frame');
    raw = JSON.parse(text);
  } catch (err) {
    return {
      ok: false,
      reason: err instanceof JsonTooDeepError ? err.message : 'the frame is not valid JSON',
      target: null,
    };
  }
  if (form === 'v2') {
    const parsed = v2Frame.safeParse(raw);
    if (parsed.success) {
      const [joinRef, ref, topic, event, payload] = parsed.data;
      return { ok: true, frame: { joinRef, ref, topic, event, payload } };
    }
    return {
      ok: false,
      reason: 'expected a frame [join_ref, ref, topic, event, payload] (serializer 2.0.0)',
      target: looseTarget(raw),
    };
  }
  const parsed = v1Frame.safeParse(raw);
  if (parsed.success) {
    const { topic, event, payload, ref, join_ref } = parsed.data;
    return { ok: true, frame: { joinRef: join_ref ?? null, ref: ref ?? null, topic, event, payload } };
  }
  return {
    ok: false,
    reason:
      'expected a frame {"topic", "event", "payload", "ref"} (serializer 1.0.0; add vsn=2.0.0 to the URL for array frames)',
    target: looseTarget(raw),
  };
}

/** Where to answer a malformed frame, whichever form it came in; null without a ref. */
function looseTarget(raw: unknown): ReplyTarget | null {
  if (raw === null || typeof raw !== 'object') return null;
  const [joinRef, ref, topic]: unknown[] = Array.isArray(raw)
    ? (raw as unknown[]).slice(0, 3)
    : [
        (raw as Record<string, unknown>).join_ref,
        (raw as Record<string, unknown>).ref,
        (raw as Record<string, unknown>).topic,
      ];
  const asRef = (v: unknown): Ref => (typeof v === 'string' || typeof v === 'number' ? v : null);
  if (asRef(ref) === null) return null;
  return { joinRef: asRef(joinRef), ref: asRef(ref), topic: typeof topic === 'string' ? topic : 'phoenix' };
}

/** A `phx_reply` to a request. */
export function encodeReply(
  form: Form,
  to: ReplyTarget,
  status: 'ok' | 'error',
  response: Record<string, unknown>,
): string {
  const payload = `{"status":"${status}","response":${JSON.stringify(response)}}`;
  if (form === 'v2')
    return `[${JSON.stringify(to.joinRef)},${JSON.stringify(to.ref)},${JSON.stringify(to.topic)},"phx_reply",${payload}]`;
  return `{"topic":${JSON.stringify(to.topic)},"event":"phx_reply","payload":${payload},"ref":${JSON.stringify(to.ref)}}`;
}

/**
 * A server push. Pushes carry neither ref nor join_ref, like Phoenix broadcasts, so one
 * framed push can go to every socket that should get it, whatever its join.
 */
export function encodePush(form: Form, event: string, payloadJson: string): string {
  if (form === 'v2') return `[null,null,"${CHANNEL}",${JSON.stringify(event)},${payloadJson}]`;
  return `{"topic":"${CHANNEL}","event":${JSON.stringify(event)},"payload":${payloadJson},"ref":null}`;
}

/** A push for many sockets: framed, and turned into bytes, at most once per form. */
export class SharedPush {
  private v1: Buffer | null = null;
  private v2: Buffer | null = null;
  constructor(
    private readonly event: string,
    private readonly payloadJson: string,
  ) {}

  frame(form: Form): Buffer {
    if (form === 'v2') return (this.v2 ??= Buffer.from(encodePush('v2', this.event, this.payloadJson)));
    return (this.v1 ??= Buffer.from(encodePush('v1', this.event, this.payloadJson)));
  }
}

/** The maximum number of entries in one filter; more is a mistake, not a use. */
export const MAX_FILTER_ENTRIES = 256;

const filterEntry = z.object(
  {
    topic: z
      .string({ error: 'topic is required and must be a string (a topic or glob such as "total/*")' })
      .min(1, 'topic must not be empty')
      .max(256, 'topic is longer than 256 characters'),
    max_frequency_s: z
      .number({ error: 'max_frequency_s must be a number of seconds' })
      .min(0, 'max_frequency_s must be 0 or more seconds')
      .max(86_400, 'max_frequency_s must be at most 86400 (one day)')
      .nullish(),
  },
  { error: 'each entry of topics must be an object {"topic": "...", "max_frequency_s"?: seconds}' },
);

const topicList = z
  .array(filterEntry, { error: 'topics must be a list of {"topic": "...", "max_frequency_s"?: seconds}' })
  .max(MAX_FILTER_ENTRIES, `topics may hold at most ${MAX_FILTER_ENTRIES} entries`);

export type FilterEntry = z.infer<typeof filterEntry>;

/** Join: `{}` (default filter) or `{"topics": [...]}`; an empty list also means the default. */
export const joinPayload = z.object({ topics: topicList.nullish() }, { error: 'the join payload must be an object' });

/** `topics`: replaces the filter; the list is required and must not be empty. */
export const topicsPayload = z.object(
  { topics: topicList.min(1, 'topics must not be empty: name at least one {"topic": "..."}') },
  { error: 'the payload must be {"topics": [{"topic": "..."}]}' },
);

/** `set`: like POST /api/v1/metrics. Numbers and booleans are taken as their text. */
export const setPayload = z.object(
  {
    topic: z.string({ error: 'topic is required and must be a string' }).min(1, 'topic must not be empty'),
    value: z.union([z.string(), z.number(), z.boolean()], { error: 'value is required and must be a string' }),
  },
  { error: 'the payload must be {"topic": "...", "value": "..."}' },
);

/** One readable line for the first problem of a payload. */
export function payloadError(error: z.ZodError): string {
  return formatZodIssue(error.issues[0]!);
}
