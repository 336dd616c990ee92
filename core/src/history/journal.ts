/**
 * The journal: slots of open hours not yet merged into rows, appended once per flush so a
 * crash loses at most one flush interval. A later record of a slot replaces an earlier one
 * (it holds the slot's whole state); a flush that merges hours starts the journal afresh.
 */
import { FORMAT, POW10 } from './codec.js';
import { ByteReader, ByteWriter } from './varint.js';
import { SLOTS_PER_HOUR, type HourBuffer } from './slots.js';
import { floorTo, HOUR_S, SLOT_S } from './utc-calendar.js';
import type { TopicRecord } from './topic-record.js';

/** One record: a slot of a topic, values as integers at `scale`. */
export interface JournalSlot {
  topicId: number;
  scale: number;
  slot: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  last: number;
}

export function encodeJournal(
  groups: Iterable<{ topicId: number; scale: number; slots: Iterable<Omit<JournalSlot, 'topicId' | 'scale'>> }>,
): Buffer {
  const w = new ByteWriter();
  w.uint(FORMAT);
  for (const g of groups) {
    const slots = [...g.slots];
    if (slots.length === 0) continue;
    w.uint(g.topicId);
    w.uint(g.scale);
    w.uint(slots.length);
    let prevSlot = 0;
    for (const s of slots) {
      w.int((s.slot - prevSlot) / 10);
      prevSlot = s.slot;
      w.uint(s.count);
      w.int(s.last);
      if (s.count > 1) {
        w.uint(s.last - s.min);
        w.uint(s.max - s.last);
        w.int(s.sum);
      }
    }
  }
  return Buffer.from(w.result());
}

export function decodeJournal(data: Uint8Array, onSlot: (s: JournalSlot) => void): void {
  const r = new ByteReader(data);
  const format = r.uint();
  if (format !== FORMAT) throw new Error(`history journal format ${format} is not known to this version`);
  while (!r.done) {
    const topicId = r.uint();
    const scale = r.uint();
    const n = r.uint();
    let slot = 0;
    for (let k = 0; k < n; k++) {
      slot += r.int() * 10;
      const count = r.uint();
      const last = r.int();
      let min = last;
      let max = last;
      let sum = last;
      if (count > 1) {
        min = last - r.uint();
        max = last + r.uint();
        sum = r.int();
      }
      onSlot({ topicId, scale, slot, count, sum, min, max, last });
    }
  }
}

/** Puts the slots of a journal row back into their topics' unsaved hours (`dryRun`: only checks it decodes). */
export function replayJournal(data: Uint8Array, byId: ReadonlyMap<number, TopicRecord>, dryRun = false): void {
  decodeJournal(data, (s) => {
    if (!Number.isSafeInteger(s.slot) || s.slot % 10 !== 0 || s.scale > 12 || s.count < 1)
      throw new Error('a journal record is out of range');
    if (dryRun) return;
    const rec = byId.get(s.topicId);
    if (!rec) return;
    if (s.scale > rec.scale) rec.rescale(s.scale);
    const f = POW10[rec.scale - s.scale]!;
    const hour = floorTo(s.slot, HOUR_S);
    rec.hourBuffer(hour).set((s.slot - hour) / SLOT_S, s.count, s.sum * f, s.min * f, s.max * f, s.last * f);
  });
}

/** The journal row: changed slots of open hours, or all of them when the journal starts afresh. */
export function journalPayload(records: Iterable<TopicRecord>, all: boolean): Buffer | null {
  const groups: Array<{ topicId: number; scale: number; slots: ReturnType<typeof slotsOf> }> = [];
  for (const rec of records) {
    const slots = [];
    for (const buf of [...rec.pending.values()].sort((a, b) => a.hour - b.hour)) {
      if (!all && !buf.anyDirty) continue;
      slots.push(...slotsOf(buf, all));
    }
    if (slots.length > 0) groups.push({ topicId: rec.id, scale: rec.scale, slots });
  }
  return groups.length === 0 ? null : encodeJournal(groups);
}

/** The slots of an hour for the journal (changed ones, or all), marking them saved. */
function slotsOf(buf: HourBuffer, all: boolean) {
  const out: Array<{ slot: number; count: number; sum: number; min: number; max: number; last: number }> = [];
  for (let i = 0; i < SLOTS_PER_HOUR; i++) {
    if (buf.count[i] === 0 || (!all && buf.dirty[i] === 0)) continue;
    out.push({
      slot: buf.hour + i * SLOT_S,
      count: buf.count[i]!,
      sum: buf.sum[i]!,
      min: buf.min[i]!,
      max: buf.max[i]!,
      last: buf.last[i]!,
    });
    buf.dirty[i] = 0;
  }
  if (all) buf.dirty.fill(0);
  buf.anyDirty = false;
  return out;
}
