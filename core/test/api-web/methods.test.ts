import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpRequest } from '../helpers/http.js';
import { tempDir } from '../helpers/tmp.js';
import { PASSWORD, startWebServer } from './harness.js';

const site = join(tempDir('heliograph-methods-'), 'site');
mkdirSync(site);
writeFileSync(join(site, 'index.html'), '<!doctype html><title>Heliograph</title>');
const server = await startWebServer({ staticDir: site });
after(() => server.close());

// The API contract (docs/api.md, "Conventions"): every 4xx/5xx body is {"error": ...} (with its "code"), also when no route answers at all.
test('a method a route does not take answers 405 in JSON, naming the methods it does take', async () => {
  for (const [method, path] of [
    ['PUT', '/api/v1/metrics'],
    ['DELETE', '/api/v1/audit'],
    ['POST', '/'],
  ]) {
    const answer = await httpRequest(server.url, path!, { method, basic: PASSWORD });
    assert.equal(answer.status, 405, `${method} ${path}`);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    assert.ok(answer.headers.get('allow')?.includes('GET'), `${method} ${path}: Allow ${answer.headers.get('allow')}`);
    assert.deepEqual(Object.keys(answer.json as object), ['error', 'code']);
    assert.match(
      (answer.json as { error: string }).error,
      new RegExp(`^${method} is not allowed on ${path!.replace('/', '\\/')}: use .*GET`),
    );
  }
});

test('a method the router does not know answers 501 in JSON', async () => {
  const answer = await httpRequest(server.url, '/api/v1/metrics', { method: 'PROPFIND', basic: PASSWORD });
  assert.equal(answer.status, 501);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(answer.json, { error: 'the method PROPFIND is not supported', code: 'METHOD_NOT_SUPPORTED' });
});
