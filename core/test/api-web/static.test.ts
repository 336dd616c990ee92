import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, brotliCompressSync, gzipSync } from 'node:zlib';
import { tempDir } from '../helpers/tmp.js';
import { startWebServer } from './harness.js';

/** A raw GET, so the path reaches the server exactly as written (fetch would normalise `..`). */
function rawGet(
  url: string,
  path: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const SECRET = 'password-hash-that-must-not-leak';
const BUNDLE = `console.log(${JSON.stringify('bundle '.repeat(200))});`;
const root = tempDir('heliograph-static-');
const site = join(root, 'site');
{
  mkdirSync(site);
  writeFileSync(
    join(site, 'index.html'),
    '<!doctype html><title>Heliograph</title><script type="module" src="/app.js"></script>',
  );
  writeFileSync(join(site, 'app.js'), 'console.log("page");');
  writeFileSync(join(site, 'style.css'), 'body { margin: 0 }');
  // As web/build.mjs writes them: a hashed bundle with its precompressed copies.
  writeFileSync(join(site, 'main-AB12CD34.js'), BUNDLE);
  writeFileSync(join(site, 'main-AB12CD34.js.br'), brotliCompressSync(BUNDLE));
  writeFileSync(join(site, 'main-AB12CD34.js.gz'), gzipSync(BUNDLE));
  writeFileSync(join(site, '.env'), SECRET);
  writeFileSync(join(root, 'secret.txt'), SECRET);
}
const server = await startWebServer({ staticDir: site });
after(() => server.close());

test('the page is served without credentials, with its content types and a strict CSP', async () => {
  const index = await fetch(`${server.url}/`);
  assert.equal(index.status, 200);
  assert.match(index.headers.get('content-type')!, /^text\/html/);
  assert.match(await index.text(), /<title>Heliograph<\/title>/);
  assert.match(index.headers.get('content-security-policy')!, /default-src 'self'.*frame-ancestors 'none'/);
  assert.equal(index.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(index.headers.get('cache-control'), 'no-cache');

  const script = await fetch(`${server.url}/app.js`);
  assert.equal(script.status, 200);
  assert.match(script.headers.get('content-type')!, /javascript/);
  assert.equal(await script.text(), 'console.log("page");');

  const css = await fetch(`${server.url}/style.css`);
  assert.match(css.headers.get('content-type')!, /^text\/css/);
  assert.equal(await css.text(), 'body { margin: 0 }');
});

test('hashed bundle files are cached for good and sent precompressed; index.html is revalidated', async () => {
  const br = await rawGetBytes(server.url, '/main-AB12CD34.js', { 'accept-encoding': 'br, gzip' });
  assert.equal(br.status, 200);
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.match(String(br.headers['content-type']), /javascript/);
  assert.match(String(br.headers.vary), /Accept-Encoding/i);
  assert.equal(brotliDecompressSync(br.body).toString('utf8'), BUNDLE);

  const gzip = await rawGetBytes(server.url, '/main-AB12CD34.js', { 'accept-encoding': 'gzip' });
  assert.equal(gzip.headers['content-encoding'], 'gzip');
  const plain = await rawGetBytes(server.url, '/main-AB12CD34.js', {});
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(plain.body.toString('utf8'), BUNDLE);

  const index = await rawGetBytes(server.url, '/', { 'accept-encoding': 'br' });
  assert.equal(index.headers['cache-control'], 'no-cache');
});

/** A raw GET with the given headers, body as bytes (fetch would decompress it). */
function rawGetBytes(
  url: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the API behind the page still needs credentials', async () => {
  const response = await fetch(`${server.url}/api/v1/metrics`);
  assert.equal(response.status, 401);
  assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="Heliograph"');
});

test('a missing file is a JSON 404 that does not reveal where the files live', async () => {
  const response = await fetch(`${server.url}/nothing.js`);
  assert.equal(response.status, 404);
  const body = (await response.json()) as { error: string };
  assert.equal(body.error, 'no such file: /nothing.js');
});

test('paths that climb out of the page directory or name hidden files are refused', async () => {
  for (const path of [
    '/..%2Fsecret.txt',
    '/%2e%2e%2fsecret.txt',
    '/../secret.txt',
    '/%2e%2e/secret.txt',
    '/.env',
    '/..%5csecret.txt',
    '/%2Fetc%2Fpasswd',
    '/app.js%00.css',
  ]) {
    const response = await rawGet(server.url, path);
    assert.ok(response.status >= 400 && response.status < 500, `${path} answered ${response.status}`);
    assert.ok(!response.body.includes(SECRET), `${path} leaked the file`);
    assert.ok(!response.body.includes(site), `${path} revealed the directory`);
    assert.match(String(response.headers['content-type']), /application\/json/, path);
  }
});

test('before the page is built, / says how to build it', async () => {
  const empty = tempDir('heliograph-unbuilt-');
  const unbuilt = await startWebServer({ staticDir: empty });
  try {
    const response = await fetch(`${unbuilt.url}/`);
    assert.equal(response.status, 404);
    const body = (await response.json()) as { error: string; code: string };
    assert.match(body.error, /^the settings page is not built: run `npm run build`/);
    assert.equal(body.code, 'PAGE_NOT_BUILT');
  } finally {
    await unbuilt.close();
  }
});
