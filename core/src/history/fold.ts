/**
 * Folding a reading or slot aggregate into a topic's unsaved hours: the hot path of live
 * recording (no allocation), and bulk writes of the past, whose first reading in a slot
 * replaces it (PastMarks).
 */
import { POW10 } from './codec.js';
import type { PastMarks } from './past-marks.js';
import { scaleFor } from './slots.js';
import { floorTo, HOUR_S, SLOT_S, slotOfMs } from './utc-calendar.js';
import type { TopicRecord } from './topic-record.js';

/** A reading as an integer at the topic's scale, raising the scale when it needs more decimals. */
export function scaledReading(rec: TopicRecord, value: number): number {
  let x = value * POW10[rec.scale]!;
  let r = Math.round(x);
  if (Math.abs(x - r) > 1e-9 + Math.abs(x) * 1e-13) {
    const scale = scaleFor(value, rec.scale);
    if (scale > rec.scale) rec.rescale(scale);
    x = value * POW10[rec.scale]!;
    r = Math.round(x);
  }
  return r;
}

/** Adds one live reading (scaled) to the 10-s slot holding timeMs. */
export function addReading(rec: TopicRecord, timeMs: number, r: number): void {
  const slot = slotOfMs(timeMs);
  const hour = floorTo(slot, HOUR_S);
  let buf = rec.cur;
  if (buf === null || buf.hour !== hour) buf = rec.cur = rec.hourBuffer(hour);
  buf.add((slot - hour) / SLOT_S, 1, r, r, r, r);
}

/** A reading or slot of a bulk write of the past (values scaled): the write's first in a slot replaces it. */
export function addPastSlot(
  rec: TopicRecord,
  marks: PastMarks,
  timeMs: number,
  count: number,
  sum: number,
  min: number,
  max: number,
  last: number,
): void {
  const slot = slotOfMs(timeMs);
  const hour = floorTo(slot, HOUR_S);
  const i = (slot - hour) / SLOT_S;
  const buf = rec.hourBuffer(hour);
  if (marks.claim(rec.id, hour, i)) buf.put(i, count, sum, min, max, last);
  else buf.add(i, count, sum, min, max, last);
}

/** One slot's aggregate, for imports of exported history (values unscaled). */
export interface SlotAggregate {
  timeMs: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  last: number;
}

/** An exported slot's aggregate, as a slot of a bulk write (the scale raised to hold its values). */
export function addImportedSlot(rec: TopicRecord, marks: PastMarks, s: SlotAggregate): void {
  for (const v of [s.sum, s.min, s.max, s.last]) {
    const scale = scaleFor(v, rec.scale);
    if (scale > rec.scale) rec.rescale(scale);
  }
  const p = POW10[rec.scale]!;
  addPastSlot(
    rec,
    marks,
    s.timeMs,
    s.count,
    Math.round(s.sum * p),
    Math.round(s.min * p),
    Math.round(s.max * p),
    Math.round(s.last * p),
  );
}
