// The Pylontech emulator on the wire: the real request bytes in, replies checked for
// framing, LENGTH check and CHKSUM, analog values decoded field by field, return codes for
// damaged requests, several packs on one bus, silence and corruption.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connectRaw } from '@heliograph/plugins-sdk/emulator';
import { checksum, parsePylonFrame, pylonFrame, pylonFrameLength, Rtn, type PylonFrame } from '../src/protocol.js';
import { startEmulator } from '../src/emulator/main.js';

let clock = new Date(2026, 5, 21, 12, 0);
const emulator = await startEmulator({ now: () => clock, packs: 3 });
const client = await connectRaw({ port: emulator.port });
after(async () => {
  client.close();
  await emulator.close();
});

async function ask(request: Buffer): Promise<PylonFrame> {
  client.send(request);
  const parsed = parsePylonFrame(await client.read(pylonFrameLength));
  assert.ok('frame' in parsed, `a sound reply (error ${'error' in parsed ? parsed.error : ''})`);
  return parsed.frame;
}
const request = (adr: number, cid2: number, info = '') => pylonFrame({ ver: 0x20, adr, cid1: 0x46, cid2, info });

/** Reads an analog-values INFO the way the protocol lays it out. */
function decodeAnalog(info: string) {
  let at = 0;
  const take = (bytes: number) => {
    const value = parseInt(info.slice(at, at + 2 * bytes), 16);
    at += 2 * bytes;
    return value;
  };
  const signed = (v: number) => (v >= 0x8000 ? v - 0x10000 : v);
  const flag = take(1);
  const address = take(1);
  const cells = Array.from({ length: take(1) }, () => take(2));
  const temperatures = Array.from({ length: take(1) }, () => (take(2) - 2731) / 10);
  const current = signed(take(2)) / 10;
  const voltage = take(2);
  const remaining = take(2);
  const userDefined = take(1);
  const full = take(2);
  const cycles = take(2);
  assert.equal(at, info.length, 'INFO fully read');
  return { flag, address, cells, temperatures, current, voltage, remaining, userDefined, full, cycles };
}

test('the real request bytes; the reply frame, LENGTH and CHKSUM', async () => {
  assert.equal(request(2, 0x42, '02').toString(), '~20024642E00202FD33\r');
  client.send(Buffer.from('~20024642E00202FD33\r'));
  const raw = await client.read(pylonFrameLength);
  assert.match(raw.toString(), /^~20024600[0-9A-F]{4}[0-9A-F]+[0-9A-F]{4}\r$/);
  const parsed = parsePylonFrame(raw);
  assert.ok('frame' in parsed);
  assert.equal(parsed.frame.cid2, Rtn.ok);
});

test('analog values: cells, temperatures, current (+ charging), capacities, cycles', async () => {
  const pack = decodeAnalog((await ask(request(2, 0x42, '02'))).info);
  assert.equal(pack.address, 2);
  assert.equal(pack.cells.length, 15);
  assert.ok(
    pack.cells.every((mv) => mv > 3000 && mv < 3600),
    `cells ${pack.cells.join(',')}`,
  );
  assert.equal(
    pack.voltage,
    pack.cells.reduce((a, b) => a + b, 0),
    'pack mV = sum of cells',
  );
  assert.ok(pack.temperatures.every((c) => c > 15 && c < 40));
  assert.ok(pack.current > 0, `charging at noon: ${pack.current} A`);
  assert.equal(pack.full, 50_000);
  assert.equal(pack.remaining, 27_500, '55 % of 50 Ah');
  assert.equal(pack.cycles, 120);
  clock = new Date(2026, 5, 21, 13, 0);
  const later = decodeAnalog((await ask(request(2, 0x42, '02'))).info);
  assert.ok(later.remaining > pack.remaining, 'remaining capacity grew while charging');
  clock = new Date(2026, 5, 21, 22, 0);
  const night = decodeAnalog((await ask(request(3, 0x42, '03'))).info);
  assert.equal(night.address, 3, 'the second pack answers on its own address');
  assert.ok(night.current < 0, `discharging at night: ${night.current} A`);
});

test('alarms, manufacturer info and protocol version', async () => {
  const alarms = await ask(request(4, 0x44, '04'));
  assert.equal(alarms.adr, 4);
  assert.match(alarms.info, /^11040F(00){15}05(00){5}(00){8}$/);
  const info = await ask(request(2, 0x51));
  assert.equal(Buffer.from(info.info.slice(0, 20), 'hex').toString().replace(/\0+$/, ''), 'US2000C');
  assert.equal(Buffer.from(info.info.slice(24), 'hex').toString().replace(/\0+$/, ''), 'PYLON');
  const version = await ask(request(2, 0x4f));
  assert.deepEqual([version.ver, version.cid2, version.info], [0x20, Rtn.ok, '']);
});

test('damaged or unknown requests get the return codes; absent addresses no answer', async () => {
  assert.equal((await ask(Buffer.from('~20024642E00202FD34\r'))).cid2, Rtn.badChecksum);
  // LENGTH with a wrong check nibble (F002), CHKSUM made right for it.
  const badLength = '20024642F00202';
  assert.equal((await ask(Buffer.from(`~${badLength}${checksum(badLength)}\r`))).cid2, Rtn.badLengthChecksum);
  assert.equal((await ask(request(2, 0x99))).cid2, Rtn.badCid2);
  assert.equal((await ask(request(2, 0x42, '03'))).cid2, Rtn.badData, 'asking pack 3 through address 2');
  assert.equal((await ask(pylonFrame({ ver: 0x21, adr: 2, cid1: 0x46, cid2: 0x42, info: '02' }))).cid2, Rtn.badVersion);
  // No pack 9: nobody answers, so the next reply is for the next request.
  client.send(request(9, 0x42, '09'));
  assert.equal((await ask(request(3, 0x4f))).adr, 3);
});

test('silence drops requests; corruption breaks the next CHKSUM only', async () => {
  emulator.silence(true);
  const seen = emulator.nextRequest();
  client.send(request(2, 0x42, '02'));
  await seen;
  emulator.silence(false);
  assert.equal((await ask(request(3, 0x4f))).adr, 3, 'the silenced request got no answer');
  emulator.corruptNext(1);
  client.send(request(2, 0x4f));
  const corrupt = parsePylonFrame(await client.read(pylonFrameLength));
  assert.deepEqual(corrupt, { error: Rtn.badChecksum });
  assert.equal((await ask(request(2, 0x4f))).cid2, Rtn.ok);
});
