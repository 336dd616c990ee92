// The history answer's writer (api/history/json.ts) prints times and values digit by digit
// instead of through strings; what it prints must be what formatUtc and String print.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { JsonBytes } from '../../src/api/history/json.js';
import { formatUtc } from '../../src/rfc3339.js';

const POW10 = Array.from({ length: 13 }, (_, i) => Number(`1e${i}`));

/** What the answer held before: each point as text. */
function expected(points: ReadonlyArray<readonly [number, number, number]>): string {
  return points.map(([ms, n, k]) => `["${formatUtc(ms)}",${String(n / POW10[k]!)}]`).join(',');
}

function written(points: ReadonlyArray<readonly [number, number, number]>): string {
  const out = new JsonBytes(16);
  points.forEach(([ms, n, k], i) => out.point(i === 0, ms, n, k));
  return out.bytes().toString('latin1');
}

// Years 0000-9999 (RFC 3339's); whole seconds and not, in any order.
const time = fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 });
const whole = fc.oneof(
  fc.integer({ min: -999, max: 999 }),
  fc.integer({ min: -(2 ** 31) - 5, max: 2 ** 31 + 5 }),
  fc.constantFrom(0, -0, 2 ** 31 - 1, -(2 ** 31 - 1), 2 ** 31, 1e15, 123_456_789_012_345, 2 ** 53),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const point = fc.tuple(time, whole, fc.integer({ min: 0, max: 12 }));

test('points read as formatUtc and String print them, for any value and decimals', () => {
  fc.assert(
    fc.property(fc.array(point, { minLength: 1, maxLength: 30 }), (points) => written(points) === expected(points)),
    { numRuns: 5000 },
  );
});

test('a day of 10-s points in order, across midnight, and the values history holds', () => {
  const start = Date.UTC(2026, 2, 28, 22, 0, 0);
  const points: Array<[number, number, number]> = [];
  for (let i = 0; i < 2000; i++) points.push([start + i * 10_000, (i * 7919) % 100_003, i % 10]);
  points.push([start - 5000, -1, 9], [start, 1, 7], [start, 1, 6], [start, 999, 9], [start, -0, 3]);
  assert.equal(written(points), expected(points));
  assert.equal(written([[start, 1, 7]]), '["2026-03-28T22:00:00Z",1e-7]');
  assert.equal(written([[start, -1234, 3]]), '["2026-03-28T22:00:00Z",-1.234]');
  assert.equal(written([[start, 1200, 2]]), '["2026-03-28T22:00:00Z",12]');
  assert.equal(written([[start, 5, 3]]), '["2026-03-28T22:00:00Z",0.005]');
});
