// The Voltronic (PI30) emulator on the wire: the real command bytes in, replies checked for
// framing, CRC (with the 0x28/0x0D/0x0A adjustment), values that follow the clock, commands
// that change what the device does, NAK for bad values and CRCs, silence and corruption.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { crc16xmodem } from 'crc';
import { connectRawTo, sendUnanswered } from '@heliograph/plugins-sdk/emulator';
import { pi30Frame, pi30FrameLength, pi30Text } from '../src/pi30.js';
import { startEmulator } from '../src/emulator/main.js';

let clock = new Date(2026, 5, 21, 12, 0);
const { emulator, client, close } = await connectRawTo(startEmulator({ now: () => clock }));
after(close);

/** Sends a command and returns the reply's text, its CRC checked. */
async function ask(command: string): Promise<string> {
  client.send(pi30Frame(command));
  const reply = await client.read(pi30FrameLength);
  const text = pi30Text(reply);
  assert.ok(text !== undefined, `reply to ${command} has a valid CRC: ${reply.toString('hex')}`);
  return text;
}

test('the frames are the real bytes, with the CRC adjustment both ways', () => {
  assert.deepEqual(pi30Frame('QPIGS'), Buffer.from('5150494753b7a90d', 'hex'));
  assert.deepEqual(pi30Frame('QMOD'), Buffer.from('514d4f4449c10d', 'hex'));
  // Find texts whose CRC holds one of the three reserved bytes: they must be sent adjusted.
  let adjusted = 0;
  for (let n = 0; n < 400; n++) {
    const text = `(${String(n).padStart(3, '0')}`;
    const crc = crc16xmodem(Buffer.from(text));
    const frame = pi30Frame(text);
    assert.equal(frame.indexOf(0x0d), frame.length - 1, 'no CR before the end');
    if ([0x28, 0x0d, 0x0a].includes(crc >> 8) || [0x28, 0x0d, 0x0a].includes(crc & 0xff)) {
      adjusted++;
      assert.equal(pi30Text(frame), text, 'an adjusted CRC is accepted');
    }
  }
  assert.ok(adjusted > 0);
});

test('QPIGS: 21 fields that follow the sun and the battery', async () => {
  const reply = await ask('QPIGS');
  assert.match(
    reply,
    /^\(\d{3}\.\d \d{2}\.\d \d{3}\.\d \d{2}\.\d \d{4} \d{4} \d{3} \d{3} \d{2}\.\d{2} \d{3} \d{3} \d{4} /,
  );
  const fields = reply.slice(1).split(' ');
  assert.equal(fields.length, 21);
  assert.equal(fields[0], '230.0');
  assert.ok(Number(fields[19]) > 0, `PV charging power at noon: ${fields[19]}`);
  assert.ok(Number(fields[9]) > 0, 'charging at noon');
  assert.equal(Number(fields[10]), 60, 'battery %');
  assert.equal(fields[16]!.length, 8, 'status bits');
  assert.equal(fields[16]![5], '1', 'charging bit');
  clock = new Date(2026, 5, 21, 14, 0);
  const later = (await ask('QPIGS')).slice(1).split(' ');
  assert.ok(Number(later[10]) > 60, `SOC rose: ${later[10]}`);
  clock = new Date(2026, 5, 21, 23, 0);
  const night = (await ask('QPIGS')).slice(1).split(' ');
  assert.equal(Number(night[19]), 0, 'no PV at night');
  assert.ok(Number(night[15]) > 0, 'SBU: the battery feeds the load at night');
  assert.equal(await ask('QMOD'), '(B');
});

test('POP, PCP and MCHGC change the device; bad values are NAKed', async () => {
  clock = new Date(2026, 5, 21, 23, 0);
  assert.equal(await ask('POP00'), '(ACK');
  assert.equal((await ask('QPIRI')).slice(1).split(' ')[16], '0');
  assert.equal(await ask('QMOD'), '(L', 'utility first: the grid feeds the load');
  assert.equal(await ask('POP03'), '(NAK');
  assert.equal(await ask('PCP02'), '(ACK');
  assert.equal((await ask('QPIRI')).slice(1).split(' ')[17], '2');
  assert.equal(await ask('PCP04'), '(NAK');
  assert.equal(await ask('QMCHGCR'), '(010 020 030 040 050 060 070 080 090 100 110 120');
  assert.equal(await ask('MCHGC045'), '(NAK');
  assert.equal(await ask('MCHGC020'), '(ACK');
  assert.equal((await ask('QPIRI')).slice(1).split(' ')[14], '020');
  // HS protocol 3.15 MCHGC<mnn>: m is the parallel unit, so MCHGC110 is unit 1 at 10 A, not this unit.
  assert.equal(await ask('MCHGC110'), '(NAK');
  assert.equal((await ask('QPIRI')).slice(1).split(' ')[14], '020');
  assert.equal(await ask('MNCHGC0110'), '(ACK', '3.19 MNCHGC<mnnn>: more than 100 A');
  assert.equal((await ask('QPIRI')).slice(1).split(' ')[14], '110');
  assert.equal(await ask('MNCHGC1060'), '(NAK', 'unit 1');
  assert.equal(await ask('MCHGC060'), '(ACK');
  assert.equal(await ask('QFOO'), '(NAK');
  assert.equal(await ask('QID'), '(92931701100435');
  assert.match(await ask('QVFW'), /^\(VERFW:\d{5}\.\d{2}$/);
  assert.equal(await ask('POP02'), '(ACK');
  assert.equal(await ask('PCP03'), '(ACK');
});

test('a command with a wrong CRC gets a NAK', async () => {
  client.send(Buffer.from('5150494753b7aa0d', 'hex'));
  assert.equal(pi30Text(await client.read(pi30FrameLength)), '(NAK');
});

test('silence drops commands; corruption breaks the next reply only', async () => {
  await sendUnanswered(emulator, client, pi30Frame('QPIGS'));
  assert.equal(await ask('QMOD'), '(B', 'the silenced QPIGS got no answer');
  emulator.corruptNext(1);
  client.send(pi30Frame('QMOD'));
  const corrupt = await client.read(pi30FrameLength);
  assert.equal(pi30Text(corrupt), undefined, 'CRC wrong');
  assert.equal(corrupt.subarray(0, 2).toString(), '(B');
  assert.equal(await ask('QMOD'), '(B');
});

test('QPI, QFLAG, QPIWS and QDI answer as a real device (bytes of mpp-solar PI30 test replies)', async () => {
  // mpp-solar's PI30 test_responses, CRC and CR included.
  const expected: Record<string, Buffer> = {
    QPI: Buffer.from('(PI30\x9a\x0b\r', 'latin1'),
    QFLAG: Buffer.from('(EakxyDbjuvz\x2F\x29\r', 'latin1'),
    QDI: Buffer.from(
      '(230.0 50.0 0030 42.0 54.0 56.4 46.0 60 0 0 2 0 0 0 0 0 1 1 0 0 1 0 54.0 0 1 000\x9E\x60\r',
      'latin1',
    ),
  };
  for (const [command, bytes] of Object.entries(expected)) {
    client.send(pi30Frame(command));
    assert.deepEqual(await client.read(pi30FrameLength), bytes, command);
  }
  assert.match(await ask('QPIWS'), /^\([01]{32}$/);
});
