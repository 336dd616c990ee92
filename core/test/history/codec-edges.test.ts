// History's on-disk form at its edges: every shape of segment comes back exactly as it was
// written (absent entries, single readings, negative values, counts that jump, a day of
// 10-s slots larger than the writer's first buffer), and damaged bytes fail loudly with a
// reason instead of reading as "no data".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import {
  decodeSegment,
  emptySegment,
  encodeSegment,
  packContainer,
  rescaleSegment,
  unpackContainer,
  type Segment,
} from '../../src/history/codec.js';
import { random } from './support.js';

const DAY = 86_400;

/** A segment of n entries, each present with probability `density`, from a seeded generator. */
function randomSegment(n: number, seed: number, density: number, withLastOff: boolean, maxOff = 0): Segment {
  const rnd = random(seed);
  const seg = emptySegment(n, 2, withLastOff);
  for (let i = 0; i < n; i++) {
    if (rnd() >= density) continue;
    const count = rnd() < 0.3 ? 1 : 1 + Math.floor(rnd() * 400);
    const values = Array.from({ length: count }, () => Math.round((rnd() - 0.4) * 2_000_000));
    seg.count[i] = count;
    seg.sum[i] = values.reduce((a, b) => a + b, 0);
    seg.min[i] = Math.min(...values);
    seg.max[i] = Math.max(...values);
    seg.last[i] = values[count - 1]!;
    if (seg.lastOff) seg.lastOff[i] = Math.floor(rnd() * (maxOff + 1));
  }
  return seg;
}

/** The present entries of a segment as plain rows, for a readable deepEqual. */
function entries(seg: Segment): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < seg.count.length; i++) {
    if (seg.count[i] === 0) continue;
    out.push([i, seg.count[i], seg.sum[i], seg.min[i], seg.max[i], seg.last[i], seg.lastOff?.[i] ?? null]);
  }
  return out;
}

function assertSameSegment(actual: Segment, expected: Segment, what: string): void {
  assert.equal(actual.scale, expected.scale, `${what}: scale`);
  assert.equal(actual.count.length, expected.count.length, `${what}: length`);
  assert.equal(actual.lastOff === null, expected.lastOff === null, `${what}: lastOff presence`);
  assert.deepEqual(entries(actual), entries(expected), `${what}: entries`);
}

test('segments of every shape come back exactly as they were written', () => {
  const cases: Array<[string, Segment, number]> = [
    ['a full day of 10-s slots', randomSegment(8640, 1, 1, false), 0],
    ['a sparse day of 10-s slots', randomSegment(8640, 2, 0.05, false), 0],
    ['a day of minutes with last offsets', randomSegment(1440, 3, 0.7, true, 5), 5],
    ['a month of hours', randomSegment(744, 4, 0.9, true, 359), 359],
    ['a year of days', randomSegment(365, 5, 0.5, true, 8639), 8639],
    ['an empty day', emptySegment(8640, 0, false), 0],
    ['a single entry', randomSegment(1, 6, 1, true, 359), 359],
  ];
  for (const [what, seg, maxOff] of cases)
    assertSameSegment(decodeSegment(encodeSegment(seg, maxOff), maxOff), seg, what);
});

test('entries with one reading, many readings and negative or huge values keep every field', () => {
  const seg = emptySegment(12, 3, true);
  // count, sum, min, max, last, lastOff; gaps at 0, 3, 4 and 11.
  const rows: Array<[number, number, number, number, number, number, number]> = [
    [1, 1, -5, -5, -5, -5, 0],
    [2, 360, 360_000, 900, 1100, 1000, 359],
    [5, 1, 7, 7, 7, 7, 12],
    [6, 2, -3, -2, -1, -1, 1],
    [7, 3, 2 ** 40, 2 ** 38, 2 ** 39, 2 ** 38 + 1, 200],
    [8, 1, 0, 0, 0, 0, 0],
    [9, 200, -4_000_000, -30_000, 10_000, -20_000, 358],
    [10, 2, 1, 0, 1, 1, 100],
  ];
  for (const [i, count, sum, min, max, last, off] of rows) {
    seg.count[i] = count;
    seg.sum[i] = sum;
    seg.min[i] = min;
    seg.max[i] = max;
    seg.last[i] = last;
    seg.lastOff![i] = off;
  }
  const back = decodeSegment(encodeSegment(seg, 359), 359);
  assertSameSegment(back, seg, 'hand-made entries');
  assert.deepEqual(entries(back)[0], [1, 1, -5, -5, -5, -5, 0], 'a lone negative reading');
});

test('a day of readings close to each other packs to under a byte per reading', () => {
  const seg = emptySegment(8640, 1, false);
  for (let i = 0; i < 8640; i++) {
    const v = 15_000 + Math.round(Math.sin(i / 300) * 2000);
    seg.count[i] = 1;
    seg.sum[i] = seg.min[i] = seg.max[i] = seg.last[i] = v;
  }
  const bytes = encodeSegment(seg).length;
  assert.ok(bytes < 8640, `a day of 10-s readings took ${bytes} bytes`);
  assertSameSegment(decodeSegment(encodeSegment(seg)), seg, 'the smooth day');
});

test('decoding into a scratch segment of the same shape reuses it and clears what it held', () => {
  const first = randomSegment(1440, 7, 0.9, true, 5);
  const second = randomSegment(1440, 8, 0.1, true, 5);
  const scratch = decodeSegment(encodeSegment(first, 5), 5);
  const reused = decodeSegment(encodeSegment(second, 5), 5, scratch);
  assert.equal(reused, scratch, 'the scratch segment is the answer');
  assertSameSegment(reused, second, 'no entry of the earlier segment is left');

  const scaled = emptySegment(1440, 4, true);
  scaled.count[3] = 1;
  scaled.sum[3] = scaled.min[3] = scaled.max[3] = scaled.last[3] = 12_345;
  assert.equal(decodeSegment(encodeSegment(scaled, 5), 5, scratch).scale, 4, 'the scale comes from the bytes');

  const tenSecond = decodeSegment(encodeSegment(randomSegment(1440, 9, 0.5, false)), 0, scratch);
  assert.notEqual(tenSecond, scratch, 'a segment without last offsets does not fit a scratch with them');
  assert.equal(tenSecond.lastOff, null);
  const withOffsets = randomSegment(1440, 12, 0.5, true, 5);
  const intoPlain = decodeSegment(encodeSegment(withOffsets, 5), 5, tenSecond);
  assert.notEqual(intoPlain, tenSecond, 'nor a segment with them a scratch without');
  assertSameSegment(intoPlain, withOffsets, 'and its last offsets are read');
  const longer = decodeSegment(encodeSegment(randomSegment(8640, 10, 0.5, true, 5), 5), 5, scratch);
  assert.notEqual(longer, scratch, 'nor does a segment of another length');
  assert.equal(longer.count.length, 8640);
});

test('a segment of an unknown format or cut short is refused', () => {
  const seg = randomSegment(100, 11, 1, false);
  const raw = Buffer.from(encodeSegment(seg));
  assert.throws(
    () => decodeSegment(deflateRawSync(Buffer.from([2, 0, 1, 0, 1, 1]))),
    /history segment format 2 is not known to this version/,
    'format 2',
  );
  assert.throws(() => decodeSegment(raw.subarray(0, raw.length - 8)), 'a truncated segment does not decode');
});

test('rescaling multiplies the present entries up to the larger scale and leaves the rest', () => {
  const seg = emptySegment(4, 1, false);
  seg.count[1] = 2;
  seg.sum[1] = 30;
  seg.min[1] = 10;
  seg.max[1] = 20;
  seg.last[1] = 20;
  seg.sum[2] = 99; // left over in an absent entry: not touched
  rescaleSegment(seg, 3);
  assert.equal(seg.scale, 3);
  assert.deepEqual([seg.count[1], seg.sum[1], seg.min[1], seg.max[1], seg.last[1]], [2, 3000, 1000, 2000, 2000]);
  assert.equal(seg.sum[2], 99, 'an absent entry is not scaled');
  rescaleSegment(seg, 3);
  assert.equal(seg.sum[1], 3000, 'rescaling to the same scale changes nothing');
});

test('a container keeps each segment by its start, in any insertion order', () => {
  const rowStart = 1_780_000_000 - (1_780_000_000 % DAY);
  const segs = new Map<number, Buffer>();
  // Inserted out of order; one segment larger than the writer's first 4 KB.
  const big = Buffer.alloc(10_000, 7);
  segs.set(rowStart + 2 * DAY, Buffer.from([1, 2, 3]));
  segs.set(rowStart, big);
  segs.set(rowStart + DAY, Buffer.from([9]));
  const packed = packContainer(rowStart, segs);
  const back = unpackContainer(rowStart, packed, rowStart + 3 * DAY);
  assert.deepEqual([...back.keys()], [rowStart, rowStart + DAY, rowStart + 2 * DAY], 'by start');
  assert.deepEqual(back.get(rowStart), big);
  assert.deepEqual(back.get(rowStart + DAY), Buffer.from([9]));
  assert.deepEqual(back.get(rowStart + 2 * DAY), Buffer.from([1, 2, 3]));
  assert.equal(unpackContainer(rowStart, packContainer(rowStart, new Map())).size, 0, 'an empty row');
  // Each segment is a copy: changing the row's bytes afterwards leaves it as read.
  packed.fill(0);
  assert.deepEqual(back.get(rowStart + 2 * DAY), Buffer.from([1, 2, 3]));
});

test('a damaged container is refused with the reason, never read as an empty row', () => {
  const rowStart = 0;
  const good = packContainer(rowStart, new Map([[DAY, Buffer.from([5, 6])]]));
  assert.throws(() => unpackContainer(rowStart, Buffer.from([0x80])), /history data is truncated/);
  assert.throws(
    () => unpackContainer(rowStart, Buffer.from([0x91, 0x03])),
    /at most 400 segments, this one claims 401/,
  );
  assert.ok(
    unpackContainer(rowStart, Buffer.from([0x90, 0x03, ...new Array<number>(800).fill(0)])).size > 0,
    '400 is allowed',
  );
  assert.throws(() => unpackContainer(rowStart, good, DAY), /a segment starts after the end of its row/);
  assert.equal(unpackContainer(rowStart, good, DAY + 1).size, 1, 'a segment starting before the end is fine');
  assert.throws(
    () => unpackContainer(rowStart, good.subarray(0, good.length - 1)),
    /the segments' lengths \(2 bytes\) do not add up to the row's 1 bytes/,
  );
  assert.throws(() => unpackContainer(rowStart, Buffer.concat([good, Buffer.from([0])])), /do not add up/);
});
