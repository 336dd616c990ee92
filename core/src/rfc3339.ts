/*
 * Times as the API writes and reads them: RFC 3339, UTC, whole seconds (docs/api.md, "Conventions").
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
  const utc = parseUtcSeconds(text);
  if (utc !== undefined) return utc;
  if (!RFC_3339.test(text)) return undefined;
  const time = DateTime.fromISO(text.replace(' ', 'T'), { setZone: true });
  return time.isValid ? time.toMillis() : undefined;
}

const DIGIT_AT = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The form the API writes (formatUtc: `2026-11-22T10:00:00Z`), read without luxon: a
 * client that sends back the times it was given (`next`, a chart's range) asks for history
 * with them, and luxon's parse was most of such a request's query parsing. Undefined for
 * any other text, including impossible dates and hour 24: those take luxon's path, so the
 * answer is always luxon's (core/test/rfc3339.test.ts compares the two).
 */
function parseUtcSeconds(text: string): number | undefined {
  if (text.length !== 20 || text.charCodeAt(19) !== 0x5a /* Z */ || text.charCodeAt(10) !== 0x54 /* T */)
    return undefined;
  if (text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d || text.charCodeAt(13) !== 0x3a) return undefined;
  if (text.charCodeAt(16) !== 0x3a) return undefined;
  for (const i of DIGIT_AT) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return undefined;
  }
  const n = (i: number, len: number) => {
    let v = 0;
    for (let k = i; k < i + len; k++) v = v * 10 + text.charCodeAt(k) - 0x30;
    return v;
  };
  const year = n(0, 4);
  const month = n(5, 2);
  const day = n(8, 2);
  const hour = n(11, 2);
  const minute = n(14, 2);
  const second = n(17, 2);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > DAYS_IN_MONTH[month - 1]! + (month === 2 && leap ? 1 : 0)) return undefined;
  return (daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second) * 1000;
}

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** RFC 3339 in UTC at second precision with a `Z`: `2026-11-22T10:00:00Z`. */
export function formatUtc(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
