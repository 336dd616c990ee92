// The scope rules on their own: which scope includes which, the 403 texts (also for a request
// that reached a scoped route with no identity at all, which the auth middleware should make
// impossible), and the scope each route's middleware carries for the route list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/api/errors.js';
import { scopeAllows, scopeMessage, scopeSchema, SCOPES } from '../../src/auth/scopes.js';
import { scope } from '../../src/api/auth.js';

const request = (identity?: { who: string; scope: 'read' | 'write' | 'admin' }) =>
  ({ state: { identity }, method: 'POST', path: '/api/v1/metrics' }) as never;

test('each scope includes the ones before it', () => {
  assert.deepEqual(SCOPES, ['read', 'write', 'admin']);
  for (const [granted, needed, allowed] of [
    ['read', 'read', true],
    ['read', 'write', false],
    ['write', 'read', true],
    ['write', 'write', true],
    ['write', 'admin', false],
    ['admin', 'write', true],
  ] as const)
    assert.equal(scopeAllows(granted, needed), allowed, `${granted} for ${needed}`);
  assert.equal(scopeSchema.safeParse('owner').error?.issues[0]?.message, 'scope must be one of read, write, admin');
});

test('a scoped route lets a large enough scope through and refuses a smaller one, or none, with 403', async () => {
  const middleware = scope('write');
  assert.equal(middleware.scope, 'write');
  let passed = 0;
  const next = () => {
    passed++;
    return Promise.resolve();
  };
  await middleware(request({ who: 'ha', scope: 'admin' }), next);
  await middleware(request({ who: 'ha', scope: 'write' }), next);
  assert.equal(passed, 2);
  await assert.rejects(
    async () => {
      await middleware(request({ who: 'ha', scope: 'read' }), next);
    },
    (err: unknown) =>
      err instanceof ApiError &&
      err.status === 403 &&
      err.message === scopeMessage({ who: 'ha', scope: 'read' }, 'write', 'POST /api/v1/metrics'),
  );
  await assert.rejects(
    async () => {
      await middleware(request(), next);
    },
    (err: unknown) =>
      err instanceof ApiError && err.status === 403 && err.message === 'POST /api/v1/metrics needs scope write',
  );
  assert.equal(passed, 2, 'nothing refused reaches the handler');
  assert.equal(
    scopeMessage({ who: 'ha', scope: 'read' }, 'write', 'POST /api/v1/metrics'),
    'token "ha" has scope read, but POST /api/v1/metrics needs scope write: create a token with "scope": "write" (POST /api/v1/tokens, signed in with the password)',
  );
});
