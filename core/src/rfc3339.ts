/*
 * Times as the API writes and reads them: RFC 3339, UTC, whole seconds (decisions.md).
 * One place, so every endpoint and stored record shows time the same way.
 */
import { DateTime } from 'luxon';

// RFC 3339 demands a date, a time with seconds and an offset; Date.parse is laxer (it takes
// "2026-02-31" and strings without an offset), so the shape is checked first and luxon
// then rejects impossible dates. luxon takes any two-digit offset (+99:99), RFC 3339 only
// hours 00-23 and minutes 00-59, so the offset's ranges are checked here.
const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

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
