// ctx.http over the whole service: a huge answer is cut off at the instance's limit, deep
// JSON is refused before anything walks it, and a hanging upstream shows in the plugin's
// status while the request is still retrying.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, statusWhen } from '../helpers/server.js';

const MiB = 1024 * 1024;
const HUGE = 200 * MiB;

/** What the fake upstream sent on its streaming routes, and the requests it holds open. */
const sent = { chunked: 0, stream: 0, declared: 0 };
const hanging = new Set<ServerResponse>();

/** Writes up to HUGE bytes in 1 MiB chunks, as fast as the client reads, until it hangs up. */
function streamHuge(res: ServerResponse, key: keyof typeof sent): void {
  const chunk = Buffer.alloc(MiB, 0x20);
  const pump = () => {
    while (sent[key] < HUGE && !res.destroyed) {
      sent[key] += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}

const upstream = createServer((req, res) => {
  switch (req.url) {
    case '/ok':
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"price":0.2}');
    case '/huge':
      res.writeHead(200, { 'content-type': 'application/json' });
      return streamHuge(res, 'chunked');
    case '/huge-stream':
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return streamHuge(res, 'stream');
    case '/huge-declared':
      // Content-Length alone says it is too much: nothing past the head needs reading.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(HUGE) });
      sent.declared += 16;
      return void res.write('{"padding":"    ');
    case '/deep':
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('['.repeat(100_000) + ']'.repeat(100_000));
    case '/hang':
      hanging.add(res);
      return;
    default:
      res.writeHead(404).end();
  }
});
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

const limit = { maxResponseBytes: MiB };
const server = await startTestServer({
  fixtures: ['fetcher'],
  plugins: [
    { id: 'ok', plugin: 'fetcher', config: { url: `${base}/ok` }, http: limit },
    { id: 'huge', plugin: 'fetcher', config: { url: `${base}/huge` }, http: limit },
    { id: 'huge-text', plugin: 'fetcher', config: { url: `${base}/huge`, as: 'text' }, http: limit },
    { id: 'huge-stream', plugin: 'fetcher', config: { url: `${base}/huge-stream`, as: 'stream' }, http: limit },
    { id: 'huge-declared', plugin: 'fetcher', config: { url: `${base}/huge-declared` }, http: limit },
    { id: 'deep', plugin: 'fetcher', config: { url: `${base}/deep` } },
    { id: 'hang', plugin: 'fetcher', config: { url: `${base}/hang` }, http: { timeoutMs: 200 } },
  ],
});
// Closed after the service (hooks run in reverse), so no request is cut off under a plugin.
test.after(async () => {
  for (const res of hanging) res.destroy();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

test('an answer of sane size is fetched and the plugin runs without error', async () => {
  const ok = await statusWhen(server, 'ok', (s) => s.last_poll !== null);
  assert.equal(ok.state, 'running');
  assert.equal(ok.last_error, null);
});

for (const id of ['huge', 'huge-text', 'huge-stream', 'huge-declared']) {
  test(`an answer past the size limit fails the request and is not read further (${id})`, async () => {
    const failed = await statusWhen(server, id, (s) => s.state === 'failed');
    assert.match(
      failed.last_error!,
      new RegExp(
        `^job fetch failed: the answer from ${base}/huge[-a-z]* is larger than 1 MiB, the plugin's limit; it was not read further`,
      ),
    );
    assert.match(failed.last_error!, /"maxResponseBytes"/, 'the error names the setting to raise');
  });
}

test('the upstream stopped sending soon after the limit, not after 200 MB', async () => {
  await Promise.all(
    ['huge', 'huge-text', 'huge-stream', 'huge-declared'].map((id) =>
      statusWhen(server, id, (s) => s.state === 'failed'),
    ),
  );
  // Two requests read /huge; socket buffers hold a few MiB beyond what the client took.
  assert.ok(sent.chunked < 2 * 32 * MiB, `sent ${sent.chunked} bytes of /huge`);
  assert.ok(sent.stream < 32 * MiB, `sent ${sent.stream} bytes of /huge-stream`);
  assert.equal(sent.declared, 16);
});

test('JSON nested 100 000 levels deep is refused before it is parsed', async () => {
  const failed = await statusWhen(server, 'deep', (s) => s.state === 'failed');
  assert.equal(
    failed.last_error,
    `job fetch failed: the answer is nested more than 64 levels deep, which no real answer is; it was not parsed in "${base}/deep"`,
  );
});

test('a hanging upstream shows in the status at the first time-out, while the request still retries', async () => {
  const timedOut = await statusWhen(server, 'hang', (s) => s.last_error !== null);
  assert.equal(timedOut.state, 'failed');
  assert.equal(timedOut.last_error, `HTTP GET ${base}/hang got no complete answer within 200 ms; retrying`);
  const gaveUp = await statusWhen(server, 'hang', (s) => s.last_error?.startsWith('job fetch failed') === true);
  assert.match(gaveUp.last_error!, /Timeout awaiting 'request' for 200ms/);
  assert.ok(hanging.size >= 3, 'three attempts were made');
});
