// Compressed API answers (core/src/api/compression.ts, koa-compress): gzip or br as the
// client's Accept-Encoding asks, identity without it, small answers as they are, the fast
// lanes' answers (the snapshot) alike, and the WebSocket stream untouched. Raw node:http
// requests, since fetch decodes (and asks for gzip by itself).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { within } from '../helpers/deadline.js';
import { connectPhoenix } from '../helpers/phoenix.js';
import { basicAuth, PASSWORD, startTestServer } from '../helpers/server.js';

const server = await startTestServer({
  bundled: ['simulator'],
  plugins: [{ id: 'sim', plugin: 'simulator', devices: ['inverter_1', 'battery_1'], config: { pollIntervalMs: 1000 } }],
});

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  /** The bytes as sent (compressed or not). */
  bytes: Buffer;
}

/** A GET with only the headers given (no Accept-Encoding unless `encoding`), its bytes as sent. */
function get(path: string, encoding?: string): Promise<Raw> {
  const headers: Record<string, string> = { authorization: basicAuth(PASSWORD) };
  if (encoding !== undefined) headers['accept-encoding'] = encoding;
  const answer = new Promise<Raw>((resolve, reject) => {
    const req = request(`${server.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  return within(answer, `GET ${path} (Accept-Encoding: ${encoding ?? 'none'})`);
}

function decoded(raw: Raw): unknown {
  const encoding = raw.headers['content-encoding'];
  const bytes =
    encoding === 'gzip' ? gunzipSync(raw.bytes) : encoding === 'br' ? brotliDecompressSync(raw.bytes) : raw.bytes;
  return JSON.parse(bytes.toString('utf8'));
}

/**
 * The answer for `encoding` and the identity answer of the same moment: a value that changed
 * between the two requests (a tick of the simulator) is asked again rather than compared.
 */
async function pair(path: string, encoding: string): Promise<{ coded: Raw; plain: Raw }> {
  for (let attempt = 0; ; attempt++) {
    const plain = await get(path);
    const coded = await get(path, encoding);
    const again = await get(path);
    if (plain.bytes.equals(again.bytes) || attempt >= 5) return { coded, plain };
  }
}

for (const [asked, expected] of [
  ['gzip', 'gzip'],
  ['br', 'br'],
  ['gzip, deflate, br', 'br'],
  ['gzip;q=1, br;q=0.5', 'gzip'],
] as const) {
  test(`GET /api/v1/grid with Accept-Encoding: ${asked} is ${expected}, the same JSON as without`, async () => {
    const { coded, plain } = await pair('/api/v1/grid', asked);
    assert.equal(coded.status, 200);
    assert.ok(plain.bytes.length >= 1024, `the grid answer is big enough to compress: ${plain.bytes.length} B`);
    assert.equal(coded.headers['content-encoding'], expected);
    assert.match(String(coded.headers['vary']), /accept-encoding/i);
    assert.match(String(coded.headers['content-type']), /^application\/json/);
    assert.ok(coded.bytes.length < plain.bytes.length / 2, `${coded.bytes.length} B of ${plain.bytes.length} B`);
    // A length, when sent, is that of the bytes on the wire.
    if (coded.headers['content-length'] !== undefined)
      assert.equal(Number(coded.headers['content-length']), coded.bytes.length);
    assert.deepEqual(decoded(coded), decoded(plain));
  });
}

test('without Accept-Encoding (or with identity only) the answer is as it is, with its length', async () => {
  for (const encoding of [undefined, 'identity', 'gzip;q=0, br;q=0']) {
    const plain = await get('/api/v1/grid', encoding);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['content-encoding'], undefined, `Accept-Encoding: ${encoding}`);
    assert.equal(Number(plain.headers['content-length']), plain.bytes.length);
    assert.equal((decoded(plain) as { provider: string }).provider, 'Simulator');
  }
});

test('a small answer (under 1 KiB) is not compressed', async () => {
  const audit = await get('/api/v1/audit?limit=1', 'gzip, br');
  assert.equal(audit.status, 200);
  assert.ok(audit.bytes.length < 1024, `${audit.bytes.length} B`);
  assert.equal(audit.headers['content-encoding'], undefined);
  const missing = await get('/api/v1/no-such-thing', 'gzip, br');
  assert.equal(missing.status, 404);
  assert.equal(missing.headers['content-encoding'], undefined);
  assert.equal((decoded(missing) as { code: string }).code, 'ENDPOINT_NOT_FOUND');
});

test('the settings page is sent precompressed, once (not compressed again)', async (t) => {
  for (const encoding of ['br', 'gzip']) {
    const page = await get('/', encoding);
    if (page.status === 404) return t.skip('the settings page is not built');
    assert.equal(page.status, 200);
    assert.equal(page.headers['content-encoding'], encoding);
    const html = (encoding === 'br' ? brotliDecompressSync(page.bytes) : gunzipSync(page.bytes)).toString('utf8');
    assert.match(html, /<html/i, 'one decoding gives the page');
  }
});

test("the snapshot's fast lane compresses as koa does", async () => {
  // The first request is koa's (it remembers the password); the second takes the lane.
  for (const encoding of ['gzip', 'br']) {
    await get('/api/v1/metrics', encoding);
    const { coded, plain } = await pair('/api/v1/metrics', encoding);
    const koa = await get('/api/v1/metrics?discovery=0', encoding);
    assert.equal(coded.headers['content-encoding'], encoding);
    assert.equal(koa.headers['content-encoding'], encoding);
    const { date: _a, ...laneHeaders } = coded.headers;
    const { date: _b, ...koaHeaders } = koa.headers;
    assert.deepEqual(laneHeaders, koaHeaders, 'the lane sends the headers koa sends');
    assert.ok(Array.isArray(decoded(coded)));
    assert.equal((decoded(coded) as unknown[]).length, (decoded(plain) as unknown[]).length);
  }
});

test('the WebSocket stream still works', async () => {
  const socket = connectPhoenix(server.url);
  try {
    const channel = socket.channel('metrics', { topics: [{ topic: 'total/*' }] });
    const data = new Promise<unknown>((resolve) => channel.on('data', resolve));
    const joined = new Promise<void>((resolve, reject) =>
      channel
        .join()
        .receive('ok', () => resolve())
        .receive('error', (e) => reject(new Error(JSON.stringify(e)))),
    );
    await within(joined, 'the metrics channel joined');
    assert.ok(await within(data, 'a data message on the metrics channel'));
  } finally {
    socket.disconnect();
  }
});
