/**
 * Rows of history_blocks in memory: which rows exist (all of them, metadata only), and an
 * LRU of loaded rows and decoded segments. A row being written stays pinned in memory until
 * its transaction commits, so a query always sees the newest state of every row.
 */
import type { Db } from '../db.js';
import {
  decodeSegment,
  emptySegment,
  encodeSegment,
  rescaleSegment,
  unpackContainer,
  type Container,
  type Segment,
} from './codec.js';
import { HistoryDamageError } from './damage.js';

import { maxLastOff, segmentLength, segmentStart, type Tier } from './tiers.js';
import { monthStart, yearStart } from './utc-calendar.js';

export { TIERS, type Tier } from './tiers.js';

export class Row {
  /** The row's segments by start, once loaded (or created); null while only on disk. */
  container: Container | null = null;
  /** Bytes of the row's data as last written or read. */
  size: number;
  /** Changed in memory, not yet committed. */
  dirty = false;
  /** To be deleted at the next commit. */
  deleted = false;

  constructor(
    readonly topicId: number,
    readonly tier: Tier,
    readonly start: number,
    readonly end: number,
    size: number,
  ) {
    this.size = size;
  }

  get loaded(): boolean {
    return this.container !== null;
  }
}

/** The rows of one topic and tier. */
export class RowSet {
  readonly byStart = new Map<number, Row>();

  constructor(readonly tier: Tier) {}

  /** The row that holds time t, if any (a day row or a month row at the day tiers). */
  containing(t: number): Row | undefined {
    if (this.tier === 3600) return this.byStart.get(monthStart(t));
    if (this.tier === 86400) return this.byStart.get(yearStart(t));
    const day = segmentStart(this.tier, t);
    const dayRow = this.byStart.get(day);
    if (dayRow) return dayRow;
    const month = this.byStart.get(monthStart(t));
    return month && month.end > t ? month : undefined;
  }

  /** Rows overlapping [from, to), by start. */
  overlapping(from: number, to: number): Row[] {
    const out: Row[] = [];
    for (const row of this.byStart.values()) if (row.start < to && row.end > from) out.push(row);
    return out.sort((a, b) => a.start - b.start);
  }
}

interface DecodedEntry {
  src: Buffer;
  seg: Segment;
  bytes: number;
  /** Decoded here for queries (see {@link RowCache.segment}): nobody else holds its arrays. */
  own: boolean;
}

/** Segments dropped from the LRU kept for the next decodes of the same shape (see {@link RowCache.segment}). */
const SPARE_SEGMENTS = 4;

export class RowCache {
  /** Rows changed in memory since the last commit. */
  readonly dirty = new Set<Row>();
  /** Rows to delete at the next commit. */
  deleted: Row[] = [];
  private readonly rows = new Map<Row, number>();
  private rowBytes = 0;
  private readonly decoded = new Map<string, DecodedEntry>();
  private decodedBytes = 0;
  /** Arrays of segments the LRU dropped, decoded into again rather than allocated anew. */
  private readonly spare: Segment[] = [];
  /** Reused by transient reads: [10-s tier, rollup tiers]. */
  private readonly scratch: Array<Segment | undefined> = [undefined, undefined];
  /** Reused by verification, one per tier: see {@link verify}. */
  private readonly work = new Map<Tier, Segment>();
  /** Per topic and tier, the segment last edited and the bytes it was written as (see {@link editable}). */
  private readonly editing = new Map<string, { segStart: number; src: Buffer | undefined; seg: Segment }>();
  /** Segment bytes that decoded without damage (or that this process encoded). */
  private readonly verified = new WeakSet<Buffer>();

  constructor(
    private readonly db: Db,
    private readonly rowLimit = 8 << 20,
    private readonly decodedLimit = 12 << 20,
  ) {}

  /** Loads the data of rows not in memory (all of them at once). */
  async load(rows: readonly Row[]): Promise<void> {
    const missing = rows.filter((r) => !r.loaded);
    if (missing.length === 0) return;
    await Promise.all(
      missing.map(async (row) => {
        const found = await this.db.get<{ data: Buffer }>(
          'SELECT data FROM history_blocks WHERE topic_id = ? AND tier = ? AND start = ?',
          row.topicId,
          row.tier,
          row.start,
        );
        // A write may have given the row its newest contents while this read was under way.
        if (row.loaded || row.deleted) return;
        if (!found)
          throw new HistoryDamageError(
            row.topicId,
            row.tier,
            row.start,
            row.end,
            'the row is missing from the database',
          );
        let container: Container;
        try {
          container = unpackContainer(row.start, found.data, row.end);
        } catch (err) {
          throw new HistoryDamageError(row.topicId, row.tier, row.start, row.end, err);
        }
        this.attach(row, container, found.data.length);
      }),
    );
    this.trim();
  }

  /** A new, empty row in a set; written at the next commit. */
  create(set: RowSet, topicId: number, start: number, end: number): Row {
    const row = new Row(topicId, set.tier, start, end, 0);
    set.byStart.set(start, row);
    this.attach(row, new Map(), 0);
    row.dirty = true;
    this.dirty.add(row);
    return row;
  }

  /** Takes a row out of its set; deleted at the next commit. */
  remove(set: RowSet, row: Row): void {
    if (set.byStart.get(row.start) === row) set.byStart.delete(row.start);
    row.deleted = true;
    row.dirty = false;
    this.dirty.delete(row);
    this.deleted.push(row);
    this.forget(row);
  }

  /** Marks a loaded row as changed (its container was edited in place). */
  changed(row: Row): void {
    row.dirty = true;
    this.dirty.add(row);
    this.touch(row);
  }

  /** Gives a row contents held in memory (a new row, or one just read). */
  attach(row: Row, container: Container, size: number): void {
    row.container = container;
    row.size = size;
    this.touch(row);
  }

  touch(row: Row): void {
    const prev = this.rows.get(row);
    if (prev !== undefined) {
      this.rows.delete(row);
      this.rowBytes -= prev;
    }
    const bytes = containerBytes(row.container!);
    this.rows.set(row, bytes);
    this.rowBytes += bytes;
  }

  forget(row: Row): void {
    const prev = this.rows.get(row);
    if (prev !== undefined) {
      this.rows.delete(row);
      this.rowBytes -= prev;
    }
  }

  /**
   * The decoded segment of a loaded row starting at segStart, or undefined when it has none.
   * `transient`: a long scan's read, used at once and not kept; it is decoded into a scratch
   * segment that the next transient read overwrites, so one request scanning months of
   * 10-s data holds one day's arrays, not one per day. A kept segment is decoded into the
   * arrays of one the LRU dropped, when there is one of its shape: clients reading day after
   * day of 10-s history then cycle a few sets of arrays (345 kB a day) instead of leaving one
   * for the collector per day they read.
   */
  segment(row: Row, segStart: number, transient = false): Segment | undefined {
    const src = row.container!.get(segStart);
    if (!src) return undefined;
    const key = `${row.topicId}:${row.tier}:${segStart}`;
    const hit = this.decoded.get(key);
    if (hit && hit.src === src) {
      this.decoded.delete(key);
      this.decoded.set(key, hit);
      return hit.seg;
    }
    const at = row.tier === 10 ? 0 : 1;
    const into = transient ? this.scratch[at] : this.takeSpare(segmentLength(row.tier, segStart), row.tier !== 10);
    const seg = this.decode(row, segStart, src, into);
    if (transient) this.scratch[at] = seg;
    else this.remember(key, src, seg, true);
    return seg;
  }

  /**
   * The segment at segStart of a loaded row (empty when it has none), at `scale`, to be
   * changed in place and written back at once with {@link putSegment}. Each topic has one
   * segment per tier to edit, decoded into the same arrays every time: a bulk write that
   * merges hour after hour into the same day decodes that day once, and one that moves on
   * to the next day reuses the arrays, so it holds one segment per topic and tier however
   * many days it writes, and leaves no decoded arrays behind for the collector.
   */
  editable(row: Row, segStart: number, scale: number): Segment {
    const key = `${row.topicId}:${row.tier}`;
    const src = row.container!.get(segStart);
    let held = this.editing.get(key);
    if (!held || held.segStart !== segStart || held.src === undefined || held.src !== src) {
      const n = segmentLength(row.tier, segStart);
      const into = held?.seg;
      if (held) held.src = undefined;
      let seg: Segment;
      if (src) seg = this.decode(row, segStart, src, into);
      else if (into && into.count.length === n && (into.lastOff !== null) === (row.tier !== 10)) {
        seg = into;
        seg.count.fill(0);
        seg.scale = scale;
      } else seg = emptySegment(n, scale, row.tier !== 10);
      if (!held) this.editing.set(key, (held = { segStart, src: undefined, seg }));
      held.segStart = segStart;
      held.seg = seg;
    }
    // Until putSegment writes it back, the arrays no longer match any stored bytes.
    held.src = undefined;
    rescaleSegment(held.seg, scale);
    return held.seg;
  }

  /** Drops the segments kept for editing (see {@link editable}): the store is done writing for now. */
  endEdits(): void {
    this.editing.clear();
  }

  /**
   * Decodes every segment of a loaded row that was not decoded (or written) before, so a
   * damaged one is found; throws HistoryDamageError. Keeps nothing decoded.
   */
  verify(row: Row): void {
    for (const [segStart, src] of row.container!) {
      if (this.verified.has(src)) continue;
      this.work.set(row.tier, this.decode(row, segStart, src, this.work.get(row.tier)));
    }
  }

  private decode(row: Row, segStart: number, src: Buffer, into: Segment | undefined): Segment {
    let seg: Segment;
    try {
      seg = decodeSegment(src, maxLastOff(row.tier), into);
      const want = segmentLength(row.tier, segStart);
      if (seg.count.length !== want) throw new Error(`a segment of ${seg.count.length} entries where ${want} belong`);
    } catch (err) {
      throw new HistoryDamageError(row.topicId, row.tier, row.start, row.end, err);
    }
    this.verified.add(src);
    return seg;
  }

  /** Replaces a segment of a loaded row with new contents; the row becomes dirty. */
  putSegment(row: Row, segStart: number, seg: Segment): void {
    let src = encodeSegment(seg, maxLastOff(row.tier));
    // deflate hands a small result out as a view of its 64 KB output chunk: a copy of its
    // own, or every segment held in a row would keep a whole chunk alive.
    if (src.buffer.byteLength > src.length + 1024) {
      const own = Buffer.allocUnsafeSlow(src.length);
      own.set(src);
      src = own;
    }
    this.verified.add(src);
    row.container!.set(segStart, src);
    const key = `${row.topicId}:${row.tier}:${segStart}`;
    const held = this.editing.get(`${row.topicId}:${row.tier}`);
    if (held?.seg === seg && held.segStart === segStart) {
      held.src = src;
      this.dropDecoded(key);
    } else this.remember(key, src, seg);
    this.changed(row);
  }

  /**
   * What is held in memory: rows with their data, decoded segments kept for queries,
   * segments kept for editing (one per topic and tier at most) and spare segments (at most
   * SPARE_SEGMENTS).
   */
  get status(): {
    rows: number;
    rowBytes: number;
    segments: number;
    segmentBytes: number;
    editing: number;
    spare: number;
  } {
    return {
      rows: this.rows.size,
      rowBytes: this.rowBytes,
      segments: this.decoded.size,
      segmentBytes: this.decodedBytes,
      editing: this.editing.size,
      spare: this.spare.length,
    };
  }

  /** Drops rows and decoded segments beyond the limits, least recently used first; dirty rows stay. */
  trim(): void {
    this.trimDecoded();
    if (this.rowBytes > this.rowLimit) {
      for (const [row, bytes] of this.rows) {
        if (this.rowBytes <= this.rowLimit * 0.8) break;
        if (row.dirty) continue;
        this.rows.delete(row);
        this.rowBytes -= bytes;
        row.container = null;
      }
    }
  }

  /**
   * Drops every row not waiting to be written and every decoded segment: what a backfill or
   * a run of large answers left in memory once the store is idle (see HistoryStore.release).
   */
  release(): void {
    this.decoded.clear();
    this.decodedBytes = 0;
    this.spare.length = 0;
    this.scratch[0] = this.scratch[1] = undefined;
    this.work.clear();
    this.editing.clear();
    for (const [row, bytes] of this.rows) {
      if (row.dirty) continue;
      this.rows.delete(row);
      this.rowBytes -= bytes;
      row.container = null;
    }
  }

  /** Bytes of rows and decoded segments held (an estimate, as the limits count them). */
  get heldBytes(): number {
    return this.rowBytes + this.decodedBytes + this.editingBytes();
  }

  private editingBytes(): number {
    let n = 0;
    for (const { seg } of this.editing.values()) n += seg.count.length * 41;
    return n;
  }

  /** Drops decoded segments beyond their limit; safe in the middle of a query (rows stay). */
  trimDecoded(): void {
    if (this.decodedBytes > this.decodedLimit) {
      for (const [key, entry] of this.decoded) {
        if (this.decodedBytes <= this.decodedLimit * 0.8) break;
        this.decoded.delete(key);
        this.decodedBytes -= entry.bytes;
        // Queries fold synchronously: a dropped segment of our own is in nobody's hands.
        if (entry.own && this.spare.length < SPARE_SEGMENTS) this.spare.push(entry.seg);
      }
    }
  }

  private dropDecoded(key: string): void {
    const old = this.decoded.get(key);
    if (old) {
      this.decoded.delete(key);
      this.decodedBytes -= old.bytes;
    }
  }

  private remember(key: string, src: Buffer, seg: Segment, own = false): void {
    this.dropDecoded(key);
    const bytes = seg.count.length * 41;
    this.decoded.set(key, { src, seg, bytes, own });
    this.decodedBytes += bytes;
  }

  /** A spare segment of `n` entries (with lastOff for rollups), taken out of the spares, if one is there. */
  private takeSpare(n: number, withLastOff: boolean): Segment | undefined {
    const i = this.spare.findIndex((s) => s.count.length === n && (s.lastOff !== null) === withLastOff);
    return i < 0 ? undefined : this.spare.splice(i, 1)[0];
  }
}

function containerBytes(container: Container): number {
  let n = 64;
  for (const b of container.values()) n += b.length + 48;
  return n;
}
