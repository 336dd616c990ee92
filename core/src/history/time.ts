/**
 * UTC calendar arithmetic and RFC 3339 text for history. Storage works in Unix seconds;
 * rows of the store follow UTC days, months and years, so their bounds come from here.
 */

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

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an RFC 3339 time with any offset to Unix ms, or undefined when it is not one.
 * Date.parse alone would roll 2025-02-30 over into March, so the fields are checked.
 */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const local = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(local).getUTCDate() !== day) return undefined;
  const fraction = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  let offsetMin = 0;
  if (!m[8]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  return local + fraction - offsetMin * 60_000;
}

/** Formats RFC 3339 UTC text at second precision with `Z`, as every answer carries times. */
export class TimeFormatter {
  private dayStart = NaN;
  private dayPrefix = '';

  /** Unix seconds (whole) to `2026-11-22T10:00:00Z`; fast for runs of times on one day. */
  format(t: number): string {
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

/** Unix ms to RFC 3339 UTC at second precision (sub-second parts are cut, not rounded). */
export function formatMs(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19) + 'Z';
}
