import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NoAnswerError } from '../../src/errors.js';
import { byteSum, requestCommandReply } from '../../src/connections/index.js';
import { loopbackServer, withTcpLink } from './fake-device.js';

// Three-byte frames: A5, the command, the low byte of the sum of both. The device answers each
// request as the next queued fault says (a wrong checksum, a reply to the command after), then
// correctly.
type Fault = 'bad-checksum' | 'other-command';
const faults: Fault[] = [];
const frame = (command: number) => Buffer.of(0xa5, command, byteSum(Buffer.of(0xa5, command)) & 0xff);
const frameLength = (buf: Buffer) => (buf.length >= 3 ? 3 : -1);
const parse = (bytes: Buffer) =>
  bytes.length === 3 && bytes[0] === 0xa5 && bytes[2] === (byteSum(bytes.subarray(0, 2)) & 0xff)
    ? { command: bytes[1]! }
    : undefined;

const port = await loopbackServer((socket) => {
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 3) {
      const command = pending[1]!;
      pending = pending.subarray(3);
      const fault = faults.shift();
      const reply = frame(fault === 'other-command' ? command + 1 : command);
      if (fault === 'bad-checksum') reply[2] = reply[2]! ^ 0xff;
      socket.write(reply);
    }
  });
});

test('byteSum adds every byte; protocols cut it to their width', () => {
  assert.equal(byteSum(Buffer.of(0xff, 0xff, 0x03)), 0x201);
  assert.equal(byteSum(Buffer.alloc(0)), 0);
});

test('requestCommandReply: a reply with a bad checksum is asked for again, the good one parsed', async () => {
  await withTcpLink(port, async (link) => {
    faults.splice(0, faults.length, 'bad-checksum');
    const signal = new AbortController().signal;
    const reply = await requestCommandReply(link, {
      request: frame(0x90),
      command: 0x90,
      complete: frameLength,
      parse,
      timeoutMs: 5000,
      signal,
    });
    assert.deepEqual(reply, { command: 0x90 });
    assert.equal(link.stats.requests, 2, 'written again after the bad checksum');
    assert.equal(link.stats.badFrames, 1);
  });
});

test('requestCommandReply: replies to another command fail, naming the command, after one resend', async () => {
  await withTcpLink(port, async (link) => {
    faults.splice(0, faults.length, 'other-command', 'other-command');
    const signal = new AbortController().signal;
    const ask = requestCommandReply(link, {
      request: frame(0x90),
      command: 0x90,
      complete: frameLength,
      parse,
      timeoutMs: 300,
      signal,
    });
    await assert.rejects(ask, (error: unknown) => {
      assert.ok(error instanceof NoAnswerError);
      assert.match(error.message, /malformed reply \(reply to command 91, 2 frames\)/);
      return true;
    });
    assert.equal(link.stats.requests, 2, 'one resend, no more');
  });
});
