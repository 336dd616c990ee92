/**
 * Which slots one bulk write of the past (a backfill call, an import) has written so far.
 *
 * The first reading a bulk write gives a slot replaces whatever the slot held (in memory
 * and, once merged, in rows); further readings of the same write add to it. So a backfill
 * resumed after a crash, or an import run twice, stores each slot once: "a slot written
 * twice holds one reading's worth", never a doubled count and sum.
 */
import { SLOTS_PER_HOUR } from './slots.js';

export class PastMarks {
  /** Per topic id and hour start: a bit per 10-s slot. */
  private readonly marks = new Map<number, Map<number, Uint8Array>>();

  /** Marks slot i of a topic's hour as written; true when this is the write's first reading there. */
  claim(topicId: number, hour: number, i: number): boolean {
    let byHour = this.marks.get(topicId);
    if (!byHour) this.marks.set(topicId, (byHour = new Map<number, Uint8Array>()));
    let bits = byHour.get(hour);
    if (!bits) byHour.set(hour, (bits = new Uint8Array(SLOTS_PER_HOUR / 8)));
    const byte = i >> 3;
    const bit = 1 << (i & 7);
    if (bits[byte]! & bit) return false;
    bits[byte]! |= bit;
    return true;
  }
}
