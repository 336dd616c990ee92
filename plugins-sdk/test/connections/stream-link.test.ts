import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { NoAnswerError } from '../../src/errors.js';
import { openStreamLink } from '../../src/connections/index.js';
import { loopbackServer, withTcpLink } from './fake-device.js';

const untilCr = (buf: Buffer) => buf.indexOf(0x0d) + 1 || -1;

// A line device on TCP that answers "(<command>\r", never answers "SLEEP\r", and garbles its
// first answer to "GARBLE\r" (as a device with line noise would) but not the answer after.
const port = await loopbackServer((socket) => {
  let text = '';
  let garbled = false;
  socket.on('data', (chunk) => {
    text += chunk.toString('latin1');
    for (let end = text.indexOf('\r'); end >= 0; end = text.indexOf('\r')) {
      const command = text.slice(0, end);
      text = text.slice(end + 1);
      if (command === 'GARBLE' && !garbled) {
        garbled = true;
        socket.write('#noise\r');
      } else if (command !== 'SLEEP') socket.write(`(${command}\r`);
    }
  });
});

test('a request with no reply times out as NoAnswerError and the next one is answered', async () => {
  await withTcpLink(port, async (link) => {
    await assert.rejects(
      link.request(Buffer.from('SLEEP\r'), { complete: untilCr, timeoutMs: 50 }),
      (error: unknown) => {
        assert.ok(error instanceof NoAnswerError);
        assert.equal(error.timeoutMs, 50);
        assert.match(error.message, /no answer within 50 ms/);
        return true;
      },
    );
    const reply = await link.request(Buffer.from('QMOD\r'), { complete: untilCr, timeoutMs: 1000 });
    assert.equal(reply.toString(), '(QMOD\r');
    assert.equal(link.stats.timeouts, 1);
  });
});

test('a queued request can be aborted before its turn; the others keep their order', async () => {
  await withTcpLink(port, async (link) => {
    const controller = new AbortController();
    const ask = (command: string, signal?: AbortSignal) =>
      link.request(Buffer.from(`${command}\r`), { complete: untilCr, timeoutMs: 1000, ...(signal ? { signal } : {}) });
    const first = ask('A');
    const second = ask('B', controller.signal);
    const third = ask('C');
    controller.abort();
    await assert.rejects(second, { name: 'AbortError' });
    assert.deepEqual((await Promise.all([first, third])).map(String), ['(A\r', '(C\r']);
    assert.equal(link.stats.requests, 2, 'the aborted request never reached the wire');
  });
});

test('a released handle refuses requests; nothing listens on a closed port: NoAnswerError', async () => {
  const link = openStreamLink({ type: 'tcp', host: '127.0.0.1', port });
  link.release();
  await assert.rejects(link.request(Buffer.from('A\r'), { complete: untilCr, timeoutMs: 100 }), /released/);
  const closed = createServer();
  closed.listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const deadPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const dead = openStreamLink({ type: 'tcp', host: '127.0.0.1', port: deadPort });
  try {
    await assert.rejects(
      dead.request(Buffer.from('A\r'), { complete: untilCr, timeoutMs: 100 }),
      /not connected \(connect ECONNREFUSED/,
    );
  } finally {
    dead.release();
  }
});

test('resendOnBadFrame writes the request again after a reply that fails its check', async () => {
  await withTcpLink(port, async (link) => {
    const check = (frame: Buffer) => frame[0] === 0x28; // "("
    const reply = await link.request(Buffer.from('GARBLE\r'), {
      complete: untilCr,
      check,
      resendOnBadFrame: 1,
      timeoutMs: 5000,
    });
    assert.equal(reply.toString(), '(GARBLE\r');
    assert.equal(link.stats.badFrames, 1);
    assert.equal(link.stats.requests, 2, 'written twice: once, then again after the garbled reply');
  });
});
