// History's segment formats: segments written in format 1 (deflate, by earlier versions) still
// decode as they were written; format 2 (what is written now) starts with its mark, predicts each
// present `last` from the entries before it with the predictor that fits the segment, and
// writes exactly the differences from that prediction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants, deflateRawSync } from 'node:zlib';
import { decodeSegment, emptySegment, encodeSegment, SEGMENT_MARK, type Segment } from '../../src/history/codec.js';
import { ByteReader, ByteWriter } from '../../src/history/varint.js';
import { PREDICT_MEAN2, PREDICT_MEAN4, PREDICT_PREVIOUS } from '../../src/history/codec-columns.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { random } from './support.js';

type Entry = [number, number, number, number, number, number, number | null];
interface Fixture {
  what: string;
  maxOff: number;
  scale: number;
  n: number;
  withLastOff: boolean;
  /** The segment as the earlier version wrote it, base64. */
  bytes: string;
  entries: Entry[];
}

/**
 * Segments written by the version before format 2 (commit cd2a82a's encodeSegment, run once:
 * this version cannot write them), with what they hold.
 */
const FIXTURES = JSON.parse(
  readFileSync(join(REPO_ROOT, 'core', 'test', 'history', 'fixtures', 'format1-segments.json'), 'utf8'),
) as Fixture[];

function entries(seg: Segment): Entry[] {
  const out: Entry[] = [];
  for (let i = 0; i < seg.count.length; i++) {
    if (seg.count[i] === 0) continue;
    out.push([i, seg.count[i]!, seg.sum[i]!, seg.min[i]!, seg.max[i]!, seg.last[i]!, seg.lastOff?.[i] ?? null]);
  }
  return out;
}

/** A segment of single readings, one per entry from the first. */
function readingsSegment(values: readonly number[], n = values.length, scale = 2): Segment {
  const seg = emptySegment(n, scale, false);
  values.forEach((v, i) => {
    seg.count[i] = 1;
    seg.sum[i] = seg.min[i] = seg.max[i] = seg.last[i] = v;
  });
  return seg;
}

/** The header and `last` differences of a format-2 segment of single readings in one present run. */
function writtenDifferences(data: Buffer, oneRun = true): { predictor: number; diffs: number[] } {
  assert.equal(data[0], SEGMENT_MARK, 'a format-2 segment starts with its mark');
  const r = new ByteReader(brotliDecompressSync(data.subarray(1)));
  r.uint(); // scale
  const n = r.uint();
  assert.equal(r.uint(), 0, 'no last offsets');
  const predictor = r.uint();
  if (!oneRun) return { predictor, diffs: [] };
  assert.deepEqual([r.uint(), r.uint(), r.uint()], [2, 0, n], 'runs: none absent, then all present');
  assert.deepEqual([r.int(), r.uint()], [0, n], 'counts: one run of one reading each');
  const diffs = Array.from({ length: n }, () => r.int());
  assert.ok(r.done, 'nothing follows the differences');
  return { predictor, diffs };
}

/** The predictions spelled out independently of the codec: previous, mean of 2, mean of 4 (floored). */
function expectedDifferences(values: readonly number[], predictor: number): number[] {
  return values.map((v, k) => {
    const before = values.slice(Math.max(0, k - 4), k).reverse();
    let guess = before[0] ?? 0;
    if (predictor === PREDICT_MEAN2 && k >= 2) guess = Math.floor((before[0]! + before[1]!) / 2);
    if (predictor === PREDICT_MEAN4 && k >= 4) guess = Math.floor(before.reduce((a, b) => a + b, 0) / 4);
    return v - guess;
  });
}

function gauss(rnd: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
}

test('segments written in format 1 by the earlier version decode to what they held', () => {
  assert.ok(FIXTURES.length >= 3);
  for (const f of FIXTURES) {
    const bytes = Buffer.from(f.bytes, 'base64');
    assert.notEqual(bytes[0]! & 0b110, 0b110, `${f.what}: a deflate stream never starts like a format-2 mark`);
    const seg = decodeSegment(bytes, f.maxOff);
    assert.equal(seg.scale, f.scale, `${f.what}: scale`);
    assert.equal(seg.count.length, f.n, `${f.what}: length`);
    assert.equal(seg.lastOff !== null, f.withLastOff, `${f.what}: last offsets`);
    assert.deepEqual(entries(seg), f.entries, `${f.what}: entries`);
    const again = encodeSegment(seg, f.maxOff);
    assert.equal(again[0], SEGMENT_MARK, `${f.what}: written again, it is format 2`);
    assert.deepEqual(entries(decodeSegment(again, f.maxOff)), f.entries, `${f.what}: and holds the same`);
  }
  assert.ok(
    FIXTURES.some((f) => f.entries.some((e) => e[1] > 1) && f.entries.some((e) => e[5] < 0)),
    'the fixtures cover rollups with negative values',
  );
});

test('each predictor is chosen for the series it fits, and the differences written are from it', () => {
  const rnd = random(41);
  // A random walk (PV under clouds): the previous value is the best guess.
  const walk: number[] = [];
  for (let i = 0, v = 3000; i < 600; i++) walk.push((v += Math.round(gauss(rnd) * 60)));
  // A rising level with some noise (a voltage while charging): the mean of the last two.
  const voltage = Array.from({ length: 600 }, (_, i) => -500 + Math.round(i + gauss(rnd) * 3));
  // A steady level under heavy noise (a house's load): the mean of the last four.
  const load = Array.from({ length: 600 }, () => -250 + Math.round(gauss(rnd) * 25));
  const cases: Array<[string, number[], number]> = [
    ['a random walk', walk, PREDICT_PREVIOUS],
    ['a rising level with noise', voltage, PREDICT_MEAN2],
    ['a steady level under heavy noise', load, PREDICT_MEAN4],
  ];
  for (const [what, values, predictor] of cases) {
    const seg = readingsSegment(values);
    const data = encodeSegment(seg);
    const written = writtenDifferences(data);
    assert.equal(written.predictor, predictor, `${what}: predictor`);
    assert.deepEqual(written.diffs, expectedDifferences(values, predictor), `${what}: differences`);
    assert.deepEqual(entries(decodeSegment(data)), entries(seg), `${what}: decodes exactly`);
  }
});

test('the means are floored, also below zero, and need two or four entries before them', () => {
  // Means of -3 and -4 and of -1..-4 fall between integers: floored, not rounded or truncated.
  for (const values of [
    [-3, -4, -3, -4, -3, -4, -3, -4, -3, -4, -3, -4],
    [-1, -2, -3, -4, -1, -2, -3, -4, -1, -2, -3, -4, -1, -2, -3, -4],
  ]) {
    const data = encodeSegment(readingsSegment(values));
    const { predictor, diffs } = writtenDifferences(data);
    assert.notEqual(predictor, PREDICT_PREVIOUS, `${values.join()}: an alternating series is a mean's`);
    assert.deepEqual(diffs, expectedDifferences(values, predictor), `${values.join()}: differences`);
    assert.deepEqual(entries(decodeSegment(data)), entries(readingsSegment(values)));
  }
  // Absent entries are skipped: the entries before are the present ones.
  const seg = emptySegment(40, 0, false);
  const values = [10, 30, 10, 30, 10, 30, 10, 30, 10, 30];
  values.forEach((v, k) => {
    const i = k * 4 + (k % 3);
    seg.count[i] = 1;
    seg.sum[i] = seg.min[i] = seg.max[i] = seg.last[i] = v;
  });
  const back = decodeSegment(encodeSegment(seg));
  assert.deepEqual(entries(back), entries(seg), 'a sparse alternating segment decodes exactly');
});

test('counts are written as runs of equal counts over the present entries', () => {
  const seg = emptySegment(10, 0, true);
  // Present at 1..8: counts 1, 1, 360, 360, 360, 2, 360, 360 (an hour of 10-s readings is 360).
  [1, 1, 360, 360, 360, 2, 360, 360].forEach((c, k) => {
    const i = k + 1;
    seg.count[i] = c;
    seg.last[i] = 10 * k;
    seg.min[i] = c > 1 ? 10 * k - 3 : 10 * k;
    seg.max[i] = c > 1 ? 10 * k + 5 : 10 * k;
    seg.sum[i] = c * 10 * k + (c > 1 ? 1 : 0);
    seg.lastOff![i] = k;
  });
  const data = encodeSegment(seg, 359);
  const r = new ByteReader(brotliDecompressSync(data.subarray(1)));
  assert.deepEqual([r.uint(), r.uint(), r.uint(), r.uint()], [0, 10, 1, PREDICT_PREVIOUS], 'header');
  assert.deepEqual([r.uint(), r.uint(), r.uint(), r.uint()], [3, 1, 8, 1], 'presence runs');
  const runs = Array.from({ length: 4 }, () => [r.int(), r.uint()]);
  assert.deepEqual(
    runs,
    [
      [0, 2],
      [359, 3],
      [-358, 1],
      [358, 2],
    ],
    '(difference from the run before, length)',
  );
  assert.deepEqual(entries(decodeSegment(data, 359)), entries(seg), 'and back');
});

test('beyond 2^48 only the previous value predicts, and huge values stay exact', () => {
  const rnd = random(43);
  const near = (base: number) => Array.from({ length: 300 }, () => base + Math.round(gauss(rnd) * 25));
  const below = encodeSegment(readingsSegment(near(2 ** 48 - 1000)));
  assert.equal(writtenDifferences(below).predictor, PREDICT_MEAN4, 'just below, the mean of four fits');
  for (const base of [2 ** 48 + 1000, -(2 ** 48) - 1000, 2 ** 52]) {
    const values = near(base);
    const data = encodeSegment(readingsSegment(values));
    const { predictor, diffs } = writtenDifferences(data);
    assert.equal(predictor, PREDICT_PREVIOUS, `around ${base}`);
    assert.deepEqual(diffs, expectedDifferences(values, PREDICT_PREVIOUS), `around ${base}: differences`);
    assert.deepEqual(entries(decodeSegment(data)), entries(readingsSegment(values)), `around ${base}: exact`);
  }
});

test('the predictor is chosen over the present entries, up to 2^48 in size, with huge differences costed whole', () => {
  const rnd = random(46);
  const chosen = (seg: Segment) => {
    const data = encodeSegment(seg);
    assert.deepEqual(entries(decodeSegment(data)), entries(seg), 'decodes exactly');
    return writtenDifferences(data, false).predictor;
  };
  // A random walk on every other entry: the absent ones between (0 in the arrays) are not values.
  const sparse = emptySegment(1200, 0, false);
  for (let i = 1, v = 5000; i < 1200; i += 2) {
    v += Math.round(gauss(rnd) * 60);
    sparse.count[i] = 1;
    sparse.sum[i] = sparse.min[i] = sparse.max[i] = sparse.last[i] = v;
  }
  assert.equal(chosen(sparse), PREDICT_PREVIOUS, 'a sparse random walk');
  // Noise reaching exactly 2^48 (or -2^48): still the mean's.
  for (const sign of [1, -1]) {
    const values = Array.from({ length: 400 }, (_, k) =>
      k % 50 === 0 ? sign * 2 ** 48 : sign * (2 ** 48 - Math.min(100, Math.abs(Math.round(gauss(rnd) * 25)))),
    );
    assert.equal(chosen(readingsSegment(values)), PREDICT_MEAN4, `noise up to ${sign * 2 ** 48}`);
  }
  // Every difference is over 2^32 whatever the guess: all cost the same, so the simplest.
  const jumps = Array.from({ length: 200 }, (_, k) => (k % 2 === 0 ? 0 : 2 ** 33 + 4));
  assert.equal(chosen(readingsSegment(jumps)), PREDICT_PREVIOUS, 'jumps of 2^33');
  // An empty segment is its header and one absent run, and nothing after.
  const r = new ByteReader(brotliDecompressSync(encodeSegment(emptySegment(10, 0, false)).subarray(1)));
  assert.deepEqual(
    Array.from({ length: 6 }, () => r.uint()),
    [0, 10, 0, PREDICT_PREVIOUS, 1, 10],
  );
  assert.ok(r.done, 'no count run is written for no entries');
});

/** The length brotli gives the payload of a format-2 segment at `quality` (the writer's other settings). */
function brotliLength(data: Buffer, quality: number): number {
  const payload = brotliDecompressSync(data.subarray(1));
  return brotliCompressSync(payload, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_LGWIN]: 16,
      [constants.BROTLI_PARAM_SIZE_HINT]: payload.length,
    },
  }).length;
}

test('a noisy day packs smaller than deflate of the same differences would', () => {
  // A battery voltage (0.01 V) over a slow daily swing with a little noise, every 10 s.
  const rnd = random(44);
  const values = Array.from({ length: 8640 }, (_, i) => Math.round(5120 + 300 * Math.sin(i / 1400) + gauss(rnd) * 1.5));
  const data = encodeSegment(readingsSegment(values));
  const w = new ByteWriter();
  for (let k = 0; k < values.length; k++) w.int(values[k]! - (values[k - 1] ?? 0));
  const deflated = deflateRawSync(w.result(), { level: 9 }).length;
  assert.ok(data.length < deflated * 0.9, `${data.length} bytes against deflate's ${deflated}`);
  // Context modelling (quality 10) is what brings it there: quality 9 of the same bytes is larger.
  assert.equal(data.length - 1, brotliLength(data, 10), 'a full day: quality 10 when it is the smaller');
  assert.ok(data.length - 1 < brotliLength(data, 9) * 0.97, 'well under quality 9');
});

test('a full day keeps the smaller of qualities 9 and 10, a day still filling and a rollup take 9', () => {
  // A temperature (0.1 degC) creeping by single steps: quality 10 does worse than 9 on it.
  const rnd = random(45);
  let t = 300;
  const creeping = Array.from({ length: 8640 }, () => (t += rnd() < 0.1 ? (rnd() < 0.5 ? -1 : 1) : 0));
  const full = encodeSegment(readingsSegment(creeping));
  assert.ok(brotliLength(full, 9) < brotliLength(full, 10), 'the case: 9 is the smaller here');
  assert.equal(full.length - 1, brotliLength(full, 9), 'so 9 is kept');

  // The same noisy voltage as above, but the day's last slot not yet filled: quality 9 only.
  const rnd2 = random(44);
  const values = Array.from({ length: 8000 }, (_, i) =>
    Math.round(5120 + 300 * Math.sin(i / 1400) + gauss(rnd2) * 1.5),
  );
  const filling = encodeSegment(readingsSegment(values, 8640));
  assert.ok(brotliLength(filling, 10) < brotliLength(filling, 9), 'the case: 10 would be smaller');
  assert.equal(filling.length - 1, brotliLength(filling, 9), 'a day still filling is not worth the time');

  // A month of hours: quality 9 (not 10, nor the faster-written 5).
  const month = emptySegment(744, 1, true);
  for (let i = 0; i < 700; i++) {
    month.count[i] = 360;
    month.last[i] = Math.round(2000 + 1000 * Math.sin(i / 4) + gauss(rnd) * 50);
    month.min[i] = month.last[i]! - 300 - Math.round(rnd() * 100);
    month.max[i] = month.last[i]! + 300 + Math.round(rnd() * 100);
    month.sum[i] = month.last[i]! * 360 + Math.round(gauss(rnd) * 5000);
    month.lastOff![i] = 359;
  }
  const rollup = encodeSegment(month, 359);
  assert.ok(brotliLength(rollup, 10) < brotliLength(rollup, 9), 'the case: 10 would be smaller');
  assert.notEqual(brotliLength(rollup, 5), brotliLength(rollup, 9), 'and 5 differs');
  assert.equal(rollup.length - 1, brotliLength(rollup, 9), 'rollups take quality 9');
  assert.deepEqual(entries(decodeSegment(rollup, 359)), entries(month), 'and decode exactly');
});

test('a segment of an unknown format or predictor, or cut short, is refused', () => {
  const legacy = deflateRawSync(Buffer.from([2, 0, 1, 0, 1, 1]));
  assert.throws(() => decodeSegment(legacy), /history segment format 2 is not known to this version/);
  const seg = readingsSegment([1, 2, 3]);
  const data = Buffer.from(encodeSegment(seg));
  assert.equal(data[0], (2 << 3) | 0b110, 'the mark holds the format above the deflate-impossible bits');
  for (const mark of [(3 << 3) | 0b110, (1 << 3) | 0b111, 0b110]) {
    const other = Buffer.from(data);
    other[0] = mark;
    assert.throws(() => decodeSegment(other), new RegExp(`history segment format ${mark >> 3} is not known`));
  }
  const header = new ByteWriter();
  for (const v of [0, 1, 0, 3, 2, 0, 1, 0, 7]) header.uint(v);
  const badPredictor = Buffer.concat([Buffer.from([SEGMENT_MARK]), brotliCompressSync(header.result())]);
  assert.throws(() => decodeSegment(badPredictor), /history segment predictor 3 is not known/);
  assert.throws(() => decodeSegment(data.subarray(0, data.length - 2)), 'a truncated segment does not decode');
  assert.throws(() => decodeSegment(Buffer.alloc(0)), 'nor does an empty one');
});
