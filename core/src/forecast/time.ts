import { DateTime } from 'luxon';

/** Forecast resolution: every forecast point covers one quarter hour. */
export const QUARTER_HOUR_MS = 15 * 60_000;

// RFC 3339 demands a date, a time with seconds and an offset; Date.parse is laxer (it takes
// "2026-02-31" and strings without an offset), so the shape is checked first and luxon
// then rejects impossible dates.
const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** Unix ms of an RFC 3339 time with any offset, or undefined when it is not one. */
export function parseRfc3339(text: string): number | undefined {
  if (!RFC_3339.test(text)) return undefined;
  const time = DateTime.fromISO(text.replace(' ', 'T'), { setZone: true });
  return time.isValid ? time.toMillis() : undefined;
}

/** RFC 3339 in UTC at second precision with a `Z`: `2026-11-22T10:00:00Z`. */
export function formatUtc(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Start of the quarter hour containing `ms`. */
export function floorToQuarterHour(ms: number): number {
  return Math.floor(ms / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
}

/** Rounds to `decimals` places without float noise in the JSON (0.30000000000000004 -> 0.3). */
export function roundTo(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  const rounded = Math.round(value * factor) / factor;
  return rounded === 0 ? 0 : rounded;
}
