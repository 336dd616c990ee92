/**
 * UTC calendar arithmetic for history, and fast RFC 3339 text for long runs of bucket times
 * (parsing and single times: ../rfc3339.ts). The storage engine (rows, segments, slots,
 * compaction, the planner's spans) works in Unix seconds, as the on-disk format stores them
 * (docs/history-format.md); rows follow UTC days, months and years, so their bounds come
 * from here. What history hands the rest of the core is Unix ms like everything else.
 */

/** A 10-s slot in ms, the resolution of history, for code outside the storage engine. */
export const SLOT_MS = 10_000;

export const SLOT_S = 10;
export const MINUTE_S = 60;
export const HOUR_S = 3600;
export const DAY_S = 86400;

/** Start of the 10-s slot holding a Unix-ms time, in Unix seconds. */
export function slotOfMs(ms: number): number {
  return Math.floor(ms / 10_000) * SLOT_S;
}

export function floorTo(t: number, step: number): number {
  return t - (((t % step) + step) % step);
}

export function ceilTo(t: number, step: number): number {
  const down = floorTo(t, step);
  return down === t ? t : down + step;
}

export function monthStart(t: number): number {
  const d = new Date(t * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
}

export function nextMonthStart(t: number): number {
  const d = new Date(t * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}

export function yearStart(t: number): number {
  return Date.UTC(new Date(t * 1000).getUTCFullYear(), 0, 1) / 1000;
}

export function nextYearStart(t: number): number {
  return Date.UTC(new Date(t * 1000).getUTCFullYear() + 1, 0, 1) / 1000;
}

/** Formats RFC 3339 UTC text at second precision with `Z`, as every answer carries times. */
export class TimeFormatter {
  private dayStart = NaN;
  private dayPrefix = '';

  /** Unix ms (of a whole second) to `2026-11-22T10:00:00Z`; fast for runs of times on one day. */
  format(ms: number): string {
    const t = Math.floor(ms / 1000);
    const day = t - (((t % DAY_S) + DAY_S) % DAY_S);
    if (day !== this.dayStart) {
      this.dayStart = day;
      this.dayPrefix = new Date(day * 1000).toISOString().slice(0, 11);
    }
    const s = t - day;
    const h = (s / 3600) | 0;
    const m = ((s % 3600) / 60) | 0;
    const sec = s % 60;
    return `${this.dayPrefix}${h < 10 ? '0' : ''}${h}:${m < 10 ? '0' : ''}${m}:${sec < 10 ? '0' : ''}${sec}Z`;
  }
}
