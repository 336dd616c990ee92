// The Pylontech emulator on the wire: the real request bytes in, replies checked for
// framing, LENGTH check and CHKSUM, analog values decoded field by field, return codes for
// damaged requests, several packs on one bus, silence and corruption.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connectRawTo, sendUnanswered } from '@heliograph/plugins-sdk/emulator';
import { checksum, parsePylonFrame, pylonFrame, pylonFrameLength, Rtn, type PylonFrame } from '../src/protocol.js';
import { startEmulator } from '../src/emulator/main.js';

let clock = new Date(2026, 5, 21, 12, 0);
const { emulator, client, close } = await connectRawTo(startEmulator({ now: () => clock, packs: 3 }));
after(close);

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
  await sendUnanswered(emulator, client, request(2, 0x42, '02'));
  assert.equal((await ask(request(3, 0x4f))).adr, 3, 'the silenced request got no answer');
  emulator.corruptNext(1);
  client.send(request(2, 0x4f));
  const corrupt = parsePylonFrame(await client.read(pylonFrameLength));
  assert.deepEqual(corrupt, { error: Rtn.badChecksum });
  assert.equal((await ask(request(2, 0x4f))).cid2, Rtn.ok);
});

/** Big-endian numbers from INFO hex, `bytes` each (signed when asked), from `at` bytes in. */
function numbers(info: string, at: number, count: number, bytes = 2, signed = false): number[] {
  return Array.from({ length: count }, (_, i) => {
    const value = parseInt(info.slice(2 * (at + i * bytes), 2 * (at + (i + 1) * bytes)), 16);
    const half = 2 ** (8 * bytes - 1);
    return signed && value >= half ? value - 2 * half : value;
  });
}

test('the queries python-pylontech sends: whole stack (FF), system parameters, management info, serial number', async () => {
  // get_values(): address 2, CID2 42, INFO "FF"; after the INFOFLAG, the number of modules,
  // then each module from its cell count on (no address).
  const stack = (await ask(request(2, 0x42, 'FF'))).info;
  assert.equal(numbers(stack, 1, 1, 1)[0], 3, 'all three packs');
  let at = 2;
  for (let pack = 0; pack < 3; pack++) {
    const cells = numbers(stack, at, 1, 1)[0]!;
    assert.equal(cells, 15);
    at += 1 + 2 * cells;
    const temps = numbers(stack, at, 1, 1)[0]!;
    at += 1 + 2 * temps;
    const [, voltage, remaining] = numbers(stack, at, 3);
    assert.ok(voltage! > 45_000 && voltage! < 56_000, `pack ${pack} voltage ${voltage} mV`);
    const [userDefined] = numbers(stack, at + 6, 1, 1);
    const [total, cycles] = numbers(stack, at + 7, 2);
    assert.ok(remaining! <= total!, 'remaining within total');
    assert.ok(cycles! > 0);
    at += 7 + 4 + (userDefined! > 2 ? 6 : 0);
  }
  assert.equal(at, stack.length / 2, 'nothing after the last pack');

  // get_system_parameters(): 12 numbers after the INFOFLAG (temperatures in K × 10).
  const params = numbers((await ask(request(2, 0x47, '02'))).info, 1, 12, 2, true);
  assert.deepEqual(params.slice(0, 3), [3650, 3000, 2700]);
  assert.equal((params[3]! - 2731) / 10, 50, 'charge high temperature');
  assert.equal(params[5]! / 100, 25, 'charge current limit');

  // Management info (CID2 92): command value, charge / discharge voltage limit (mV), current limits (0.1 A), status.
  const management = (await ask(request(3, 0x92, '03'))).info;
  assert.equal(numbers(management, 0, 1, 1)[0], 3);
  assert.deepEqual(numbers(management, 1, 2), [53_200, 45_000]);
  assert.deepEqual(numbers(management, 5, 2, 2, true), [250, -250]);
  assert.equal(numbers(management, 9, 1, 1)[0]! & 0xc0, 0xc0, 'charge and discharge enabled');

  // get_module_serial_number(): command value, 16 ASCII characters (protocol V3.3 section 3.7:
  // the command value matched with ADR).
  const serial = (await ask(request(4, 0x93, '04'))).info;
  assert.equal(numbers(serial, 0, 1, 1)[0], 4);
  assert.equal(Buffer.from(serial.slice(2), 'hex').toString('ascii'), 'PPTAH02400123458');
  assert.equal((await ask(request(2, 0x93, '03'))).cid2, Rtn.badData, 'a command value that is not the ADR');
  assert.equal((await ask(request(2, 0x93))).cid2, Rtn.badFormat, 'no command value');
});
