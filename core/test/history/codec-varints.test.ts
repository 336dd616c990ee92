// The varints under every history byte (segments, containers, the journal): each size of
// number a writer can be given comes back from the reader, the reader says when it is done,
// and a writer grows past its first buffer without losing a byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteReader, ByteWriter } from '../../src/history/varint.js';

const EDGES = [
  0,
  1,
  127,
  128,
  255,
  16_383,
  16_384,
  2 ** 21 - 1,
  2 ** 21,
  2 ** 32,
  2 ** 49 + 3,
  Number.MAX_SAFE_INTEGER,
];

test('unsigned and signed varints of every size come back as written, and the reader knows its end', () => {
  const w = new ByteWriter();
  for (const v of EDGES) w.uint(v);
  for (const v of EDGES) {
    w.int(v);
    if (v > 0 && v <= 2 ** 51) w.int(-v);
  }
  const bytes = w.result();
  const r = new ByteReader(bytes);
  assert.deepEqual(
    EDGES.map(() => r.uint()),
    EDGES,
  );
  const signed: number[] = [];
  for (const v of EDGES) {
    signed.push(r.int());
    if (v > 0 && v <= 2 ** 51) assert.equal(r.int(), -v, `-${v}`);
  }
  assert.deepEqual(signed, EDGES);
  assert.equal(r.done, true, 'every byte read');
  assert.equal(r.pos, bytes.length);
});

test('small numbers take one byte, and each 7 bits more one byte more', () => {
  const sizes = [0, 127, 128, 16_383, 16_384].map((v) => {
    const w = new ByteWriter();
    w.uint(v);
    return w.result().length;
  });
  assert.deepEqual(sizes, [1, 1, 2, 2, 3]);
  const signed = [0, -1, 1, -64, 63, 64].map((v) => {
    const w = new ByteWriter();
    w.int(v);
    return [...w.result()];
  });
  assert.deepEqual(signed, [[0], [1], [2], [127], [126], [128, 1]], 'zigzag: 0, -1, 1, -2, 2, ...');
});

test('a reader is not done until its last byte, and raw bytes pass through unchanged', () => {
  const w = new ByteWriter();
  w.uint(300);
  w.bytes(Uint8Array.from([1, 2, 3]));
  const r = new ByteReader(w.result());
  assert.equal(r.done, false);
  assert.equal(r.uint(), 300);
  assert.equal(r.done, false);
  assert.deepEqual([...r.bytes(2)], [1, 2]);
  assert.equal(r.done, false, 'one byte left');
  assert.deepEqual([...r.bytes(1)], [3]);
  assert.equal(r.done, true);
});

test('a writer grows past its first 4 KB, by varints and by blocks, keeping every byte', () => {
  const w = new ByteWriter();
  for (let i = 0; i < 3000; i++) w.uint(200 + i); // two bytes each: 6000 bytes
  const block = Uint8Array.from({ length: 20_000 }, (_, i) => i % 251);
  w.bytes(block);
  w.uint(2 ** 40);
  const bytes = w.result();
  assert.equal(bytes.length, 6000 + 20_000 + 6);
  const r = new ByteReader(bytes);
  for (let i = 0; i < 3000; i++) assert.equal(r.uint(), 200 + i);
  assert.deepEqual(Uint8Array.from(r.bytes(20_000)), block);
  assert.equal(r.uint(), 2 ** 40);
  assert.equal(r.done, true);
});

test('a varint cut short is refused, not read as a smaller number', () => {
  assert.throws(() => new ByteReader(Uint8Array.from([0xff, 0xff])).uint(), /history data is truncated/);
  assert.equal(new ByteReader(Uint8Array.from([0xff, 0x01])).uint(), 255);
});
