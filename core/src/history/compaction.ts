/**
 * Moving unsaved hours into rows, and the upkeep of rows: packing the day rows of a past
 * month into one month row, and deleting old 10-s history (retention, disk budget) while
 * keeping its 1-min rollups. Each function has an async part that loads the rows it needs
 * and a synchronous part that changes them, so a query never sees half a change.
 */
import type { Container, Segment } from './codec.js';
import { SLOTS_PER_HOUR, type HourBuffer } from './slots.js';
import type { Row, RowCache } from './rows.js';
import { segmentEnd, segmentStart, type Tier } from './tiers.js';
import type { TopicRecord } from './topic-record.js';
import { DAY_S, HOUR_S, MINUTE_S, monthStart, nextMonthStart, SLOT_S } from './utc-calendar.js';

/** The slot columns of an unsaved hour or of a 10-s segment. */
type SlotColumns = Pick<Segment, 'count' | 'sum' | 'min' | 'max' | 'last'>;

/** Rows that merging `bufs` into `rec` will change and that already exist. */
export function rowsForMerge(rec: TopicRecord, bufs: readonly HourBuffer[]): Row[] {
  const out = new Set<Row>();
  for (const buf of bufs) {
    const day = segmentStart(10, buf.hour);
    const dayTier: Tier = day >= rec.evictedBefore ? 10 : 60;
    for (const tier of [dayTier, 3600, 86400] as const) {
      const row = rec.rows[tier].containing(buf.hour);
      if (row) out.add(row);
    }
  }
  return [...out];
}

/**
 * Merges hours into every tier of a topic: 10-s slots (or 1-min rollups on days whose 10-s
 * history is gone), hours and days. Rollups are updated by folding, which is exact: counts
 * and sums add, min and max compare, and "last" goes to the part with the later reading.
 * The rows from {@link rowsForMerge} must be loaded.
 */
export function mergeHours(rec: TopicRecord, bufs: readonly HourBuffer[], cache: RowCache, todayStart: number): void {
  const byDay = new Map<number, HourBuffer[]>();
  for (const buf of bufs) {
    const day = segmentStart(10, buf.hour);
    let list = byDay.get(day);
    if (!list) byDay.set(day, (list = []));
    list.push(buf);
  }
  for (const [day, hours] of [...byDay].sort((a, b) => a[0] - b[0])) {
    hours.sort((a, b) => a.hour - b.hour);
    if (day >= rec.evictedBefore) {
      const row = dayRow(rec, 10, day, cache, todayStart);
      const seg = writableSegment(rec, cache, row, day);
      for (const buf of hours) mergeSlots(seg, buf, (buf.hour - day) / SLOT_S);
      cache.putSegment(row, day, seg);
      if (hours.some((b) => b.anyReplace)) {
        // Replaced slots cannot be folded into rollups (their old values would stay in):
        // the touched hours and the day are worked out again from the day's 10-s slots.
        rebuildRollups(rec, seg, day, hours, cache);
        continue;
      }
    } else {
      const row = dayRow(rec, 60, day, cache, todayStart);
      const seg = writableSegment(rec, cache, row, day);
      for (const buf of hours) foldHour(seg, buf, day, 60);
      cache.putSegment(row, day, seg);
    }
    const monthRow = rollupRow(rec, 3600, day, cache);
    const hourSeg = writableSegment(rec, cache, monthRow, monthRow.start);
    for (const buf of hours) foldHour(hourSeg, buf, monthRow.start, HOUR_S);
    cache.putSegment(monthRow, monthRow.start, hourSeg);

    const yearRow = rollupRow(rec, 86400, day, cache);
    const daySeg = writableSegment(rec, cache, yearRow, yearRow.start);
    for (const buf of hours) foldHour(daySeg, buf, yearRow.start, DAY_S);
    cache.putSegment(yearRow, yearRow.start, daySeg);
  }
}

/** Recomputes the hour entries of `hours` and the day's entry from the day's (complete) 10-s segment. */
function rebuildRollups(
  rec: TopicRecord,
  slots: Segment,
  day: number,
  hours: readonly HourBuffer[],
  cache: RowCache,
): void {
  const monthRow = rollupRow(rec, 3600, day, cache);
  const hourSeg = writableSegment(rec, cache, monthRow, monthRow.start);
  for (const buf of hours) {
    const first = (buf.hour - day) / SLOT_S;
    clearEntry(hourSeg, (buf.hour - monthRow.start) / HOUR_S);
    foldSlots(
      slotRange(slots, first, SLOTS_PER_HOUR),
      SLOTS_PER_HOUR,
      (buf.hour - monthRow.start) / SLOT_S,
      hourSeg,
      HOUR_S / SLOT_S,
    );
  }
  cache.putSegment(monthRow, monthRow.start, hourSeg);

  const yearRow = rollupRow(rec, 86400, day, cache);
  const daySeg = writableSegment(rec, cache, yearRow, yearRow.start);
  clearEntry(daySeg, (day - yearRow.start) / DAY_S);
  foldSlots(slots, slots.count.length, (day - yearRow.start) / SLOT_S, daySeg, DAY_S / SLOT_S);
  cache.putSegment(yearRow, yearRow.start, daySeg);
}

function slotRange(seg: SlotColumns, from: number, n: number): SlotColumns {
  const to = from + n;
  return {
    count: seg.count.subarray(from, to),
    sum: seg.sum.subarray(from, to),
    min: seg.min.subarray(from, to),
    max: seg.max.subarray(from, to),
    last: seg.last.subarray(from, to),
  };
}

function clearEntry(seg: Segment, j: number): void {
  seg.count[j] = 0;
  seg.sum[j] = 0;
  seg.min[j] = 0;
  seg.max[j] = 0;
  seg.last[j] = 0;
  if (seg.lastOff) seg.lastOff[j] = 0;
}

/** The segment of a loaded row at segStart, at the topic's scale, ready to change in place. */
function writableSegment(rec: TopicRecord, cache: RowCache, row: Row, segStart: number): Segment {
  return cache.editable(row, segStart, rec.scale);
}

/**
 * Adds the slots of an hour to a 10-s segment from entry `at` on; the hour's values win
 * "last". Slots a bulk write of the past replaced overwrite what the segment held.
 */
function mergeSlots(seg: Segment, buf: HourBuffer, at: number): void {
  const { count, sum, min, max, last } = seg;
  for (let i = 0; i < SLOTS_PER_HOUR; i++) {
    const c = buf.count[i]!;
    if (c === 0) continue;
    const j = at + i;
    if (count[j] === 0 || buf.replace[i] === 1) {
      count[j] = c;
      sum[j] = buf.sum[i]!;
      min[j] = buf.min[i]!;
      max[j] = buf.max[i]!;
    } else {
      count[j]! += c;
      sum[j]! += buf.sum[i]!;
      if (buf.min[i]! < min[j]!) min[j] = buf.min[i]!;
      if (buf.max[i]! > max[j]!) max[j] = buf.max[i]!;
    }
    last[j] = buf.last[i]!;
  }
}

/** Folds the slots of an hour into a rollup segment of `res`-second entries starting at segStart. */
function foldHour(seg: Segment, buf: HourBuffer, segStart: number, res: number): void {
  foldSlots(buf, SLOTS_PER_HOUR, (buf.hour - segStart) / SLOT_S, seg, res / SLOT_S);
}

/**
 * Folds `n` 10-s slots, the first of them slot `first` of the rollup segment's span, into
 * its entries of `per` slots each; "last" goes to the later slot of an entry.
 */
function foldSlots(slots: SlotColumns, n: number, first: number, out: Segment, per: number): void {
  const { count, sum, min, max, last } = out;
  const lastOff = out.lastOff!;
  for (let i = 0; i < n; i++) {
    const c = slots.count[i]!;
    if (c === 0) continue;
    const slotIndex = first + i;
    const j = Math.floor(slotIndex / per);
    const off = slotIndex - j * per;
    if (count[j] === 0) {
      count[j] = c;
      sum[j] = slots.sum[i]!;
      min[j] = slots.min[i]!;
      max[j] = slots.max[i]!;
      last[j] = slots.last[i]!;
      lastOff[j] = off;
      continue;
    }
    count[j]! += c;
    sum[j]! += slots.sum[i]!;
    if (slots.min[i]! < min[j]!) min[j] = slots.min[i]!;
    if (slots.max[i]! > max[j]!) max[j] = slots.max[i]!;
    if (off >= lastOff[j]!) {
      last[j] = slots.last[i]!;
      lastOff[j] = off;
    }
  }
}

/**
 * The row a day goes into at a day tier: the row holding it, or a new one. A day of a past
 * month starts a month row when the month has no day rows; otherwise it gets a day row, and
 * {@link repackMonth} joins the month's day rows once the month is over.
 */
function dayRow(rec: TopicRecord, tier: 10 | 60, day: number, cache: RowCache, todayStart: number): Row {
  const set = rec.rows[tier];
  const found = set.containing(day);
  if (found) return found;
  const ms = monthStart(day);
  const me = nextMonthStart(day);
  let hasDayRows = false;
  for (const row of set.byStart.values()) if (row.start >= ms && row.start < me) hasDayRows = true;
  return me <= todayStart && !hasDayRows
    ? cache.create(set, rec.id, ms, me)
    : cache.create(set, rec.id, day, day + DAY_S);
}

function rollupRow(rec: TopicRecord, tier: 3600 | 86400, t: number, cache: RowCache): Row {
  const set = rec.rows[tier];
  const start = segmentStart(tier, t);
  return set.byStart.get(start) ?? cache.create(set, rec.id, start, segmentEnd(tier, start));
}

/** Day rows of months that are over, by tier and month: to be packed into month rows. */
export function monthsToRepack(
  rec: TopicRecord,
  todayStart: number,
): Array<{ tier: 10 | 60; month: number; rows: Row[] }> {
  const out: Array<{ tier: 10 | 60; month: number; rows: Row[] }> = [];
  for (const tier of [10, 60] as const) {
    const byMonth = new Map<number, Row[]>();
    for (const row of rec.rows[tier].byStart.values()) {
      if (row.end - row.start !== DAY_S || nextMonthStart(row.start) > todayStart) continue;
      const ms = monthStart(row.start);
      let list = byMonth.get(ms);
      if (!list) byMonth.set(ms, (list = []));
      list.push(row);
    }
    for (const [month, rows] of byMonth) out.push({ tier, month, rows });
  }
  return out;
}

/**
 * Joins the (loaded) day rows of a past month into one month row. The day segments are
 * moved as they are, not recompressed: few large rows waste far less of SQLite's pages
 * than many small ones.
 */
export function repackMonth(
  rec: TopicRecord,
  tier: 10 | 60,
  month: number,
  rows: readonly Row[],
  cache: RowCache,
): void {
  const set = rec.rows[tier];
  const merged: Container = new Map();
  for (const row of rows) {
    for (const [start, bytes] of row.container!) merged.set(start, bytes);
    cache.remove(set, row);
  }
  const monthRow = cache.create(set, rec.id, month, nextMonthStart(month));
  for (const [start, bytes] of merged) monthRow.container!.set(start, bytes);
  cache.changed(monthRow);
}

/**
 * The end of the oldest 10-s rows, across topics, whose sizes add up to `bytes`, not going
 * past `limit`; undefined when there is nothing to delete.
 */
export function oldestRowsCutoff(records: Iterable<TopicRecord>, bytes: number, limit: number): number | undefined {
  const rows = [...records].flatMap((rec) => [...rec.rows[10].byStart.values()]).sort((a, b) => a.start - b.start);
  let freed = 0;
  let cutoff: number | undefined;
  for (const row of rows) {
    if (freed >= bytes || row.end > limit) break;
    freed += row.size;
    cutoff = row.end;
  }
  return cutoff;
}

/** 10-s rows holding days before `cutoff`, which retention is about to delete. */
export function rowsToEvict(rec: TopicRecord, cutoff: number): Row[] {
  return [...rec.rows[10].byStart.values()].filter((row) => row.start < cutoff);
}

/**
 * Deletes the 10-s history of days before `cutoff` (rows from {@link rowsToEvict}, loaded),
 * first rolling each day up into 1-min entries, so every query at 1 min or coarser still
 * answers exactly. Hour and day rollups are untouched: they already hold these days.
 */
export function evictBefore(
  rec: TopicRecord,
  cutoff: number,
  rows: readonly Row[],
  cache: RowCache,
  todayStart: number,
): void {
  if (cutoff <= rec.evictedBefore) return;
  for (const row of rows) {
    for (const day of [...row.container!.keys()].sort((a, b) => a - b)) {
      if (day >= cutoff) continue;
      const slots = writableSegment(rec, cache, row, day);
      const minuteRow = dayRow(rec, 60, day, cache, todayStart);
      const minutes = writableSegment(rec, cache, minuteRow, day);
      foldSlots(slots, slots.count.length, 0, minutes, MINUTE_S / SLOT_S);
      cache.putSegment(minuteRow, day, minutes);
      row.container!.delete(day);
    }
    if (row.container!.size === 0) cache.remove(rec.rows[10], row);
    else cache.changed(row);
  }
  rec.evictedBefore = cutoff;
  rec.dirty = true;
}
