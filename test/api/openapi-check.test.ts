// The check every helper runs on every answer (@heliograph/core/test/openapi-check) finds
// what it is there to find: a wrong body, a status, content type or route the document does
// not have, a body where it says none. Made-up answers against a real server's document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertMatches, checked, routesCheck } from '@heliograph/core/test/helpers/openapi-check';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer({ plugins: [] });
const check = routesCheck(server.routes);
const json = (body: unknown, status = 200) => ({
  status,
  contentType: 'application/json; charset=utf-8',
  body: JSON.stringify(body),
});
const get = (url: string) => ({ method: 'GET', url: server.url + url });

test('a matching answer passes; path parameters and the query do not matter', () => {
  assert.equal(check.mismatch(get('/api/v1/setup?x=1'), json({ needs_setup: false })), undefined);
  const deleted = { method: 'DELETE', url: `${server.url}/api/v1/tokens/abc` };
  assert.equal(check.mismatch(deleted, { status: 204, contentType: null, body: '' }), undefined);
  const noToken = json({ error: 'no token abc', code: 'TOKEN_NOT_FOUND' }, 404);
  assert.equal(check.mismatch(deleted, noToken), undefined, 'the 4XX fallback');
  assert.match(
    check.mismatch(deleted, json({ error: 'no token abc' }, 404))!,
    /required property 'code'/,
    'an error answer without its code',
  );
  assert.match(
    check.mismatch(deleted, json({ error: 'no token abc', code: 'NO_SUCH_THING' }, 404))!,
    /code.*must be equal to one of the allowed values/,
    'a code the table does not have',
  );
  const script = { status: 200, contentType: 'text/javascript; charset=utf-8', body: 'let x;' };
  assert.equal(check.mismatch(get('/app-0123abcd.js'), script), undefined, 'a file of the page: not JSON, its type');
});

test('a JSON body its schema does not allow is named with the schema’s complaint', () => {
  assert.match(check.mismatch(get('/api/v1/setup'), json({ needs_setup: 'no' }))!, /needs_setup.*must be boolean/);
  assert.match(check.mismatch(get('/api/v1/setup'), json({ oops: true }, 500))!, /must have required property 'error'/);
  const notJson = { status: 200, contentType: 'application/json', body: '{' };
  assert.match(check.mismatch(get('/api/v1/setup'), notJson)!, /not JSON/);
});

test('a status, a content type or a route the document does not have, and a body where it says none', () => {
  assert.match(check.mismatch(get('/api/v1/setup'), json({ needs_setup: true }, 202))!, /no answer 202/);
  const html = { status: 200, contentType: 'text/html', body: '<p>' };
  assert.match(check.mismatch(get('/api/v1/setup'), html)!, /as text\/html; the document says application\/json/);
  assert.match(check.mismatch(get('/api/v1/nothing'), json([]))!, /no route/);
  assert.match(check.mismatch(get('/api/v1/nothing'), json({ nope: 1 }, 404))!, /no route.*required property 'error'/);
  const deleted = { method: 'DELETE', url: `${server.url}/api/v1/tokens/abc` };
  assert.match(check.mismatch(deleted, { status: 204, contentType: 'text/plain', body: 'gone' })!, /says none/);
});

test('json() and text() of a checked answer throw the mismatch', async () => {
  const asked = get('/api/v1/setup');
  const wrong = () => new Response('{"needs_setup":1}', { headers: { 'content-type': 'application/json' } });
  await assert.rejects(checked(Promise.resolve(check), asked, wrong()).json(), /must be boolean/);
  await assert.rejects(checked(Promise.resolve(check), asked, wrong()).text(), /must be boolean/);
  const right = new Response('{"needs_setup":true}', { headers: { 'content-type': 'application/json' } });
  assert.deepEqual(await checked(Promise.resolve(check), asked, right).json(), { needs_setup: true });
  assert.throws(() => assertMatches('told'), /told/);
});
