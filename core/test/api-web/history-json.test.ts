// The history answer's writer (api/history/json.ts) prints times and values digit by digit
// instead of through strings; what it prints must be what formatUtc and String print.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { JsonBytes } from '../../src/api/history/json.js';
import { AGGS } from '../../src/history/params.js';
import { Buckets, type Agg } from '../../src/history/slots.js';
import { formatUtc } from '../../src/rfc3339.js';

/** 9999-12-31T23:59:59Z, Unix s. */
const LAST_SECOND = 253_402_300_799;

/** What the answer held before: each point as text. */
function expected(buckets: Buckets, agg: Agg): string {
  const points: string[] = [];
  for (let b = 0; b < buckets.n; b++)
    if (buckets.count[b] !== 0) points.push(`["${formatUtc(buckets.timeMs(b))}",${String(buckets.value(b, agg))}]`);
  return points.join(',');
}

function written(buckets: Buckets, agg: Agg): string {
  const out = new JsonBytes(16);
  out.points(buckets, agg);
  return out.bytes().toString('latin1');
}

/** Buckets holding `values` (scaled integers, as history keeps them), one reading each unless `count`. */
function filled(start: number, size: number, scale: number, values: ReadonlyArray<number | null>, count = 1) {
  const buckets = new Buckets(start, size, values.length, scale);
  values.forEach((v, b) => {
    if (v !== null) buckets.fold(b, count, v * count, v, v, v, start + b * size);
  });
  return buckets;
}

// Any value a bucket can hold: small, around 2^31, huge sums, fractions of a mean, -0.
const value = fc.oneof(
  fc.integer({ min: -999, max: 999 }),
  fc.integer({ min: -(2 ** 31) - 5, max: 2 ** 31 + 5 }),
  fc.constantFrom(0, -0, 2 ** 31 - 1, 2 ** 31, 1e15, 123_456_789_012_345, 2 ** 53, 1e21),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

test('points read as formatUtc and String print them, for any value, scale, aggregate and bucket', () => {
  // Years 0000-9999 (RFC 3339's, the API's); bucket sizes from 10 s to a year.
  const start = fc.integer({ min: -62_167_219_200, max: LAST_SECOND }).map((s) => s - (s % 10));
  fc.assert(
    fc.property(
      start,
      fc.integer({ min: 1, max: 3_153_600 }).map((n) => n * 10),
      fc.integer({ min: 0, max: 9 }),
      fc.array(fc.option(value, { nil: null }), { minLength: 1, maxLength: 40 }),
      fc.integer({ min: 1, max: 7 }),
      fc.constantFrom(...AGGS),
      (first, size, scale, values, count, agg) => {
        fc.pre(first + values.length * size <= LAST_SECOND);
        const buckets = filled(first, size, scale, values, count);
        return written(buckets, agg) === expected(buckets, agg);
      },
    ),
    { numRuns: 3000 },
  );
});

test('a page of 10-s buckets across midnight, with gaps, and the values history holds', () => {
  const start = Date.UTC(2026, 2, 28, 22, 0, 0) / 1000;
  const values = Array.from({ length: 2000 }, (_, i) => (i % 17 === 0 ? null : ((i * 7919) % 100_003) - 500));
  for (const scale of [0, 1, 3, 6])
    for (const agg of AGGS) {
      const buckets = filled(start, 10, scale, values, 3);
      assert.equal(written(buckets, agg), expected(buckets, agg), `scale ${scale}, ${agg}`);
    }
  const one = (v: number, scale: number) => written(filled(start, 10, scale, [v]), 'sum');
  assert.equal(one(1, 7), '["2026-03-28T22:00:00Z",1e-7]');
  assert.equal(one(-1234, 3), '["2026-03-28T22:00:00Z",-1.234]');
  assert.equal(one(1200, 2), '["2026-03-28T22:00:00Z",12]');
  assert.equal(one(5, 3), '["2026-03-28T22:00:00Z",0.005]');
  assert.equal(written(filled(start, 10, 0, [null, null]), 'mean'), '');
});
