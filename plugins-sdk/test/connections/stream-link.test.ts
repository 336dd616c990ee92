import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { NoAnswerError } from '../../src/errors.js';
import { openStreamLink } from '../../src/connections/index.js';

const untilCr = (buf: Buffer) => buf.indexOf(0x0d) + 1 || -1;

// A line device on TCP that answers "(<command>\r" and never answers "SLEEP\r".
const server = createServer((socket) => {
  let text = '';
  socket.on('data', (chunk) => {
    text += chunk.toString('latin1');
    for (let end = text.indexOf('\r'); end >= 0; end = text.indexOf('\r')) {
      const command = text.slice(0, end);
      text = text.slice(end + 1);
      if (command !== 'SLEEP') socket.write(`(${command}\r`);
    }
  });
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const port = (server.address() as AddressInfo).port;
after(() => new Promise((resolve) => server.close(resolve)));

test('a request with no reply times out as NoAnswerError and the next one is answered', async () => {
  const link = openStreamLink({ type: 'tcp', host: '127.0.0.1', port });
  try {
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
  } finally {
    link.release();
  }
});

test('a queued request can be aborted before its turn; the others keep their order', async () => {
  const link = openStreamLink({ type: 'tcp', host: '127.0.0.1', port });
  try {
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
  } finally {
    link.release();
  }
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
