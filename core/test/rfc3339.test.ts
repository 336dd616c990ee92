import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { formatUtc, parseRfc3339 } from '../src/rfc3339.js';

test('formatUtc writes UTC at whole seconds with a Z, dropping milliseconds', () => {
  assert.equal(formatUtc(Date.parse('2026-11-22T10:00:00Z')), '2026-11-22T10:00:00Z');
  assert.equal(formatUtc(Date.parse('2026-11-22T10:00:59.999Z')), '2026-11-22T10:00:59Z');
  assert.equal(formatUtc(Date.parse('2026-03-29T03:30:00+02:00')), '2026-03-29T01:30:00Z');
});

test('parseRfc3339 takes any offset and fractions, and refuses what RFC 3339 does not allow', () => {
  assert.equal(parseRfc3339('2026-11-22T11:00:00+01:00'), Date.parse('2026-11-22T10:00:00Z'));
  assert.equal(parseRfc3339('2026-11-22 10:00:00.250z'), Date.parse('2026-11-22T10:00:00.250Z'));
  assert.equal(parseRfc3339('2026-11-22T10:00:00'), undefined, 'no offset');
  assert.equal(parseRfc3339('2026-11-22T10:00Z'), undefined, 'no seconds');
  assert.equal(parseRfc3339('2026-02-31T10:00:00Z'), undefined, 'no such day');
  assert.equal(parseRfc3339('yesterday'), undefined);
  assert.equal(parseRfc3339('2026-11-22T10:00:00+99:99'), undefined, 'offset out of range');
  assert.equal(parseRfc3339('2026-11-22T10:00:00+24:00'), undefined, 'offset hour 24');
  assert.equal(parseRfc3339('2026-11-22T10:00:00-05:60'), undefined, 'offset minute 60');
  assert.equal(parseRfc3339('2026-11-22T10:00:00-23:59'), Date.parse('2026-11-23T09:59:00Z'));
});

test('a formatted time parses back to its whole second', () => {
  const ms = Date.parse('2026-06-10T05:42:13.731Z');
  assert.equal(parseRfc3339(formatUtc(ms)), ms - 731);
});

test("the API's own form (YYYY-MM-DDTHH:MM:SSZ) parses to what luxon reads, whatever its digits", () => {
  const luxon = (text: string) => {
    const time = DateTime.fromISO(text, { setZone: true });
    return time.isValid ? time.toMillis() : undefined;
  };
  const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));
  const text = fc
    .tuple(fc.integer({ min: 0, max: 9999 }), two(13), two(32), two(25), two(61), two(61))
    .map(([y, mo, d, h, mi, s]) => `${String(y).padStart(4, '0')}-${mo}-${d}T${h}:${mi}:${s}Z`);
  fc.assert(
    fc.property(text, (t) => parseRfc3339(t) === luxon(t)),
    { numRuns: 20_000 },
  );
  for (const t of [
    '2024-02-29T23:59:59Z',
    '2023-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2000-02-29T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '0099-12-31T23:59:59Z',
    '1969-12-31T23:59:59Z',
    '2026-11-22T24:00:00Z',
    '9999-12-31T23:59:59Z',
  ])
    assert.equal(parseRfc3339(t), luxon(t), t);
  assert.equal(parseRfc3339('2026-11-22T10:00:00Z'), Date.parse('2026-11-22T10:00:00Z'));
});
