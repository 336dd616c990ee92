import type { Clock } from '../../clock.js';
import type { HistoryQuery } from '../../history/planner.js';
import type { Agg } from '../../history/slots.js';
import type { HistoryStore } from '../../history/store.js';
import { recordedMeta } from '../../history/recorded-meta.js';
import type { StoredMeta } from '../../history/topic-record.js';
import { formatUtc } from '../../rfc3339.js';
import { deviceFieldsOfTopic } from '../../topics/device.js';
import type { TopicRegistry } from '../../topics/registry.js';
import { ApiError } from '../errors.js';
import { refuseEmptyRange } from '../query.js';
import type { HistoryAnswers } from './answer-cache.js';
import { JsonBytes } from './json.js';

const DAY_MS = 86_400_000;

/** What GET /api/v1/history answers from: the koa route and the fast lane share it. */
export interface HistoryDeps {
  registry: TopicRegistry;
  store: HistoryStore | null;
  clock: Clock;
  unavailable?: () => string;
  /** Answers kept for requests asked again (answer-cache.ts); none: every request is read. */
  answers?: HistoryAnswers;
}

/** The query as the route's schema parses it (route.ts, `historyQuery`). */
export interface ParsedHistoryQuery {
  topic: string;
  from?: number | undefined;
  to?: number | undefined;
  group_by: { ms: number; text: string };
  agg: Agg;
}

/** A request checked and ready to be read: every refusal was made by {@link prepareHistory}. */
export interface PreparedHistory {
  store: HistoryStore;
  answers: HistoryAnswers | undefined;
  q: ParsedHistoryQuery;
  meta: StoredMeta;
  range: HistoryQuery;
}

/**
 * The checks a history request passes before anything is read, in the route's order: the
 * store is open, the range is not empty, the topic is recorded (or was). Throws the API's
 * errors; synchronous, so the fast lane can hand any refusal to koa before it answers.
 */
export function prepareHistory(deps: HistoryDeps, q: ParsedHistoryQuery): PreparedHistory {
  const store = deps.store;
  // The service runs without history when its database could not be opened.
  if (!store)
    throw new ApiError(
      'HISTORY_UNAVAILABLE',
      `history is unavailable: ${deps.unavailable?.() ?? 'it could not be opened'}`,
      { 'Retry-After': '60' },
    );
  const to = q.to ?? deps.clock.now();
  const from = q.from ?? to - DAY_MS;
  refuseEmptyRange(q, from, to, {
    code: 'HISTORY_RANGE_INVALID',
    fromDefault: 'from defaults to one day before to',
    toDefault: 'to defaults to now',
    showTimes: true,
  });
  const meta = recordedMeta(deps.registry, store, q.topic);
  const range = { fromMs: from, toMs: to, groupMs: q.group_by.ms, agg: q.agg };
  return { store, answers: deps.answers, q, meta, range };
}

/**
 * The answer's bytes: one page of the topic's buckets (see json.ts for why a Buffer), or
 * the same bytes kept from an earlier request when nothing they came from has changed.
 */
export async function historyBytes(p: PreparedHistory): Promise<Buffer> {
  const { q, meta, range, answers } = p;
  const key = `${q.topic}\n${range.fromMs}\n${range.toMs}\n${q.group_by.text}\n${q.agg}`;
  const now = answers && p.store.pageInputs(q.topic, range);
  const kept = now && answers.get(key, meta, now);
  if (kept) return kept;
  const page = await p.store.query(q.topic, range);
  // From the topic, not the stored meta: history written before the clients' rules keeps its old device names.
  const device = deviceFieldsOfTopic(q.topic);
  const out = new JsonBytes(512);
  out.text(
    `{"topic":${JSON.stringify(q.topic)},"device":${JSON.stringify(device.device)},"number":${device.number},"group":${JSON.stringify(meta.group)},` +
      `"name":${JSON.stringify(meta.name)},"unit":${JSON.stringify(meta.unit)},"agg":"${q.agg}","group_by":"${q.group_by.text}",` +
      `"from":"${formatUtc(range.fromMs)}","to":"${formatUtc(page.endMs)}","points":[`,
  );
  out.points(page.buckets, q.agg);
  out.ascii(']');
  // Damaged stored history is named, never answered as an empty stretch.
  if (page.unreadable)
    out.text(
      `,"unreadable":${JSON.stringify(page.unreadable.map((u) => ({ from: formatUtc(u.fromMs), to: formatUtc(u.toMs) })))}`,
    );
  out.ascii(page.nextMs === undefined ? '}' : `,"next":"${formatUtc(page.nextMs)}"}`);
  const bytes = out.bytes();
  answers?.put(key, meta, page.inputs, bytes);
  return bytes;
}
