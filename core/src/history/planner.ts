/**
 * Answering a history query from the coarsest tiers that give the exact answer.
 *
 * Buckets are epoch-aligned multiples of the bucket size, so inside the range every bucket
 * is a whole number of entries of each tier whose length divides the bucket size (1 d, 1 h,
 * 1 min, 10 s). Only the edges can cut a bucket: the first bucket starts at `from`, not at
 * its aligned start, and a page or `to` can end mid-bucket. The range is split into spans
 * that climb from 10 s to the coarsest usable tier and back down, so each span lines up
 * with its tier's entries and every reading is counted exactly once.
 */
import { Buckets, type Agg, type HourBuffer } from './slots.js';
import type { Row, RowCache } from './rows.js';
import { segmentStart, type Tier, TIERS } from './tiers.js';
import type { TopicRecord } from './topic-record.js';
import { ceilTo, DAY_S, floorTo } from './utc-calendar.js';

/** Day-tier spans longer than this are read without keeping their decoded days (8 days). */
const LONG_SCAN_S = 8 * DAY_S;

/** Buckets per answer; the rest come in further pages. */
export const MAX_BUCKETS = 2000;

export interface HistoryQuery {
  /** Unix ms, inclusive. */
  fromMs: number;
  /** Unix ms, exclusive. */
  toMs: number;
  /** Bucket size in ms, a multiple of 10 s. */
  groupMs: number;
  agg: Agg;
}

export interface HistoryPage {
  buckets: Buckets;
  /** End of this page, Unix ms: `to`, or the end of bucket 2000 when more follow. */
  endMs: number;
  /** Present when more buckets follow: the `from` of the next page (= endMs). */
  nextMs?: number;
  /** Ranges (Unix ms) of this page whose stored history was damaged and could not be read. */
  unreadable?: Array<{ fromMs: number; toMs: number }>;
  /**
   * What the page was folded from, taken as it was folded (see inputsOf): a page asked
   * again whose `pageInputs` are equal to these is this page, to the byte.
   */
  inputs: readonly number[];
}

export interface Span {
  tier: Tier;
  from: number;
  to: number;
}

/**
 * Splits [from, to) (Unix s, multiples of 10) into spans aligned to the tiers that divide
 * the bucket size: finer tiers up to the first coarse boundary, the coarsest tier in the
 * middle, finer tiers again after the last one.
 */
export function cover(from: number, to: number, groupS: number): Span[] {
  const tiers = TIERS.filter((t) => groupS % t === 0);
  const out: Span[] = [];
  let lo = from;
  let i = 0;
  while (i < tiers.length - 1) {
    const up = ceilTo(lo, tiers[i + 1]!);
    if (up > to) break;
    if (up > lo) out.push({ tier: tiers[i]!, from: lo, to: up });
    lo = up;
    i++;
  }
  for (let j = i; j >= 0 && lo < to; j--) {
    const down = floorTo(to, tiers[j]!);
    if (down > lo) {
      out.push({ tier: tiers[j]!, from: lo, to: down });
      lo = down;
    }
  }
  return out;
}

/** Where a span's entries come from: rows of one tier, read at `res`-second entries. */
interface Part {
  rows: Row[];
  res: number;
  from: number;
  to: number;
  /** Rows hold day segments (10 s, 1 min) rather than one segment per row. */
  byDay: boolean;
}

function partsOf(rec: TopicRecord, span: Span): Part[] {
  const { tier, from, to } = span;
  if (tier === 3600 || tier === 86400)
    return [{ rows: rec.rows[tier].overlapping(from, to), res: tier, from, to, byDay: false }];
  const parts: Part[] = [];
  const evicted = rec.evictedBefore;
  // 1-min rollups are stored only for days whose 10-s history is gone; elsewhere the 10-s
  // slots are the 1-min tier (folding them into 1-min-multiple buckets gives the same sums).
  if (tier === 60 && from < evicted) parts.push(dayPart(rec, 60, from, Math.min(to, evicted)));
  if (to > evicted) parts.push(dayPart(rec, 10, Math.max(from, evicted), to));
  return parts;
}

function dayPart(rec: TopicRecord, tier: 10 | 60, from: number, to: number): Part {
  const rows = new Set<Row>();
  const set = rec.rows[tier];
  for (let day = segmentStart(10, from); day < to; day += DAY_S) {
    const row = set.containing(day);
    if (row) rows.add(row);
  }
  return { rows: [...rows], res: tier, from, to, byDay: true };
}

/** The page's buckets and the stored range they read (Unix s, multiples of 10). */
function pageOf(q: HistoryQuery) {
  // The boundary into the storage engine's seconds; the page's times go back out in ms.
  const size = q.groupMs / 1000;
  const start = Math.floor(q.fromMs / (size * 1000)) * size;
  const total = Math.ceil((q.toMs - start * 1000) / (size * 1000));
  const n = Math.min(total, MAX_BUCKETS);
  const endMs = n < total ? (start + n * size) * 1000 : q.toMs;
  const from = Math.ceil(q.fromMs / 10_000) * 10;
  const to = Math.ceil(endMs / 10_000) * 10;
  const spans = from < to ? cover(from, to, size) : [];
  return { size, start, n, more: n < total, endMs, from, to, spans };
}

/** Reads one page of a query; a topic without history (rec undefined) gets the page with no points. */
export async function runQuery(rec: TopicRecord | undefined, q: HistoryQuery, cache: RowCache): Promise<HistoryPage> {
  const { size, start, n, more, endMs, from, to, spans } = pageOf(q);
  if (!rec) return paged(new Buckets(start, size, n, 0), more, endMs, [0]);

  // Rows can be dropped from memory or replaced by a flush while others load; the answer
  // is folded only once every row it needs is in memory at the same moment.
  let parts: Part[];
  for (let attempt = 0; ; attempt++) {
    parts = spans.flatMap((s) => partsOf(rec, s));
    const missing = parts.flatMap((p) => p.rows.filter((r) => !r.loaded));
    if (missing.length === 0) break;
    if (attempt > 5)
      throw new Error('history rows keep leaving memory while a query loads them; the row cache is too small');
    await cache.load(missing);
  }

  const buckets = new Buckets(start, size, n, rec.scale);
  for (const part of parts) {
    for (const row of part.rows) {
      if (part.byDay) {
        // A scan of many days reads each once: decoded into scratch, not kept (see RowCache.segment).
        const transient = part.to - part.from > LONG_SCAN_S;
        for (let day = firstDay(row, part); day < Math.min(row.end, part.to); day += DAY_S) {
          const seg = cache.segment(row, day, transient);
          if (seg) buckets.foldSegment(seg, day, part.res, Math.max(part.from, day), Math.min(part.to, day + DAY_S));
          // A long page of 10-s buckets (group_by 50s, say) reads many days: keep memory bounded.
          cache.trimDecoded();
        }
      } else {
        const seg = cache.segment(row, row.start);
        if (seg) buckets.foldSegment(seg, row.start, part.res, part.from, part.to);
      }
    }
  }
  const unreadable = unreadableRanges(rec, parts);
  for (const buf of unsaved(rec, from, to)) buckets.foldHour(buf, rec.scale, from, to);
  // Taken in the same synchronous run as the fold: nothing can have changed in between.
  const page = paged(buckets, more, endMs, inputsOf(rec, parts, from, to) ?? [NaN]);
  return unreadable.length > 0 ? { ...page, unreadable } : page;
}

function firstDay(row: Row, part: Part): number {
  return Math.max(row.start, segmentStart(10, part.from));
}

/** The unsaved hours of a topic (being merged, then pending) that overlap [from, to), in the order they are folded. */
function unsaved(rec: TopicRecord, from: number, to: number): HourBuffer[] {
  const out: HourBuffer[] = [];
  for (const buf of rec.compacting) if (buf.hour < to && buf.hour + 3600 > from) out.push(buf);
  for (const buf of rec.pending.values()) if (buf.hour < to && buf.hour + 3600 > from) out.push(buf);
  return out;
}

/**
 * What a page of `q` would be read from, as it stands now (see {@link HistoryPage.inputs}),
 * or undefined when a row it needs is not in memory (reading the page loads it). Costs a
 * walk of the page's rows, not a read: for answer caches (api/history/answer-cache.ts).
 */
export function pageInputs(rec: TopicRecord | undefined, q: HistoryQuery): number[] | undefined {
  if (!rec) return [0];
  const { from, to, spans } = pageOf(q);
  return inputsOf(
    rec,
    spans.flatMap((s) => partsOf(rec, s)),
    from,
    to,
  );
}

/**
 * Everything a page was folded from, as numbers: the topic's record, scale, evicted range
 * and damaged rows; each part's tier and range; the identity of every stored segment read
 * (stored segments are never changed in place: a write makes a new Buffer, which RowCache's
 * decoded segments rely on too); each unsaved hour's identity and version (HourBuffer
 * counts its changes). Two equal lists mean the same page. Objects are numbered in a
 * WeakMap, so the list keeps nothing alive.
 */
function inputsOf(rec: TopicRecord, parts: readonly Part[], from: number, to: number): number[] | undefined {
  const out = [idOf(rec), rec.scale, rec.evictedBefore, idOf(rec.damaged), rec.damaged.length];
  for (const part of parts) {
    out.push(part.res, part.from, part.to, part.rows.length);
    for (const row of part.rows) {
      if (!row.container) return undefined;
      if (part.byDay)
        for (let day = firstDay(row, part); day < Math.min(row.end, part.to); day += DAY_S)
          out.push(day, idOrZero(row.container.get(day)));
      else out.push(row.start, idOrZero(row.container.get(row.start)));
    }
  }
  for (const buf of unsaved(rec, from, to)) out.push(idOf(buf), buf.version);
  return out;
}

const ids = new WeakMap<object, number>();
let nextId = 1;

function idOf(o: object): number {
  let id = ids.get(o);
  if (id === undefined) ids.set(o, (id = nextId++));
  return id;
}

function idOrZero(o: object | undefined): number {
  return o === undefined ? 0 : idOf(o);
}

function paged(buckets: Buckets, more: boolean, endMs: number, inputs: readonly number[]): HistoryPage {
  return more ? { buckets, endMs, nextMs: endMs, inputs } : { buckets, endMs, inputs };
}

/** The parts of the answer that quarantined rows of the tiers it read from would have held. */
function unreadableRanges(rec: TopicRecord, parts: readonly Part[]): Array<{ fromMs: number; toMs: number }> {
  const out: Array<{ fromMs: number; toMs: number }> = [];
  if (rec.damaged.length === 0) return out;
  for (const part of parts) {
    for (const d of rec.damaged) {
      if (d.tier !== part.res) continue;
      const from = Math.max(d.start, part.from);
      const to = Math.min(d.end, part.to);
      if (from < to) out.push({ fromMs: from * 1000, toMs: to * 1000 });
    }
  }
  return out.sort((a, b) => a.fromMs - b.fromMs);
}

export type { Agg };
