// Walks every route the routers really registered (server.routes, read from the routers'
// layers, not a hand-kept list) in several spellings, with no, wrong and right credentials,
// and with tokens of each scope: nothing but the public routes answers without credentials,
// and each route answers exactly the scopes it declares.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scopeAllows, type RouteInfo } from '@heliograph/core/testing';
import { basicAuth, jsonBody, PASSWORD, startTestServer } from '../helpers/server.js';

const server = await startTestServer({
  bundled: ['simulator'],
  plugins: [
    { id: 'sim', plugin: 'simulator', devices: ['inverter_1'], config: { demoForecast: false, demoPrices: false } },
  ],
  // Wrong credentials are sent on purpose hundreds of times here: keep the address unthrottled.
  config: { auth: { maxFailedLogins: 1_000_000 } },
});

/** What each route needs; a new route must be added here with its scope, on purpose. */
const EXPECTED_SCOPES: Record<string, RouteInfo['scope']> = {
  'GET /api/v1/metrics': 'read',
  'POST /api/v1/metrics': 'write',
  'GET /api/v1/history': 'read',
  'GET /api/v1/forecast': 'read',
  'GET /api/v1/grid': 'read',
  'GET /api/v1/energy': 'read',
  'GET /api/v1/system': 'read',
  'GET /api/v1/plugins': 'admin',
  'GET /api/v1/plugins/installed': 'admin',
  'POST /api/v1/plugins': 'admin',
  'PATCH /api/v1/plugins/:id': 'admin',
  'DELETE /api/v1/plugins/:id': 'admin',
  'GET /api/v1/plugins/:id/config': 'admin',
  'PUT /api/v1/plugins/:id/config': 'admin',
  'PUT /api/v1/plugins/:id/grants': 'admin',
  'GET /api/v1/config': 'admin',
  'PUT /api/v1/config': 'admin',
  'GET /api/v1/audit': 'admin',
  'GET /api/v1/backups': 'admin',
  'POST /api/v1/backups': 'admin',
  'PUT /api/v1/backups/schedule': 'admin',
  'GET /api/v1/backups/:name': 'admin',
  'DELETE /api/v1/backups/:name': 'admin',
  'POST /api/v1/backups/restore': 'admin',
  'POST /api/v1/backups/:name/restore': 'admin',
  'POST /api/v1/tokens': 'admin',
  'GET /api/v1/tokens': 'admin',
  'DELETE /api/v1/tokens/:id': 'admin',
  'GET /api/v1/openapi.json': 'read',
  'GET /metrics': 'read',
};

const concrete = (path: string) => path.replace(':id', 'sim');

/** The path in several spellings a gate keyed on the literal path would miss. */
function spellings(path: string): string[] {
  const last = path.lastIndexOf('/');
  const letter = path[last + 1]!;
  return [
    path,
    path.toUpperCase(),
    path.replace('/api/v1', '/Api/V1'),
    `${path}/`,
    path.replace('/api/', '//api/'),
    path.replace('/v1/', '/v1//'),
    path.replace('/v1/', '/v1/./'),
    path.replace('/v1/', '/x/../v1/'),
    // A single-segment path (/metrics) keeps its leading slash: `/%2Fmetrics`.
    `${path.slice(0, Math.max(last, 1))}%2F${path.slice(last + 1)}`,
    `${path.slice(0, last + 1)}%${letter.charCodeAt(0).toString(16)}${path.slice(last + 2)}`,
  ];
}

function request(route: RouteInfo, path: string, auth: string | null): Promise<Response> {
  const init: RequestInit & { auth?: string | null } = { method: route.method, auth };
  if (route.method === 'POST' || route.method === 'PUT') Object.assign(init, jsonBody({}), { method: route.method });
  return server.api(path, init);
}

test('the route list holds every route with the scope it declares', () => {
  const apiRoutes = server.routes.filter((r) => r.scope !== 'public');
  const listed = Object.fromEntries(apiRoutes.map((r) => [`${r.method} ${r.path}`, r.scope]));
  // HEAD rides along with GET in the router; the walk covers it through GET.
  assert.deepEqual(listed, EXPECTED_SCOPES);
  assert.ok(server.routes.some((r) => r.scope === 'public' && r.path === '/api/websocket'));
});

test('every non-public route in every spelling answers 401 without or with wrong credentials, and not 401 with the password', async () => {
  for (const route of server.routes.filter((r) => r.scope !== 'public')) {
    // Spellings of one route go in parallel; a wrong password costs a full scrypt, so it is
    // tried on the plain spelling, a wrong token and malformed headers on all of them.
    await Promise.all(
      spellings(concrete(route.path)).map(async (path) => {
        const what = `${route.method} ${path}`;
        const wrong = path === concrete(route.path) ? [basicAuth('wrong password')] : [];
        for (const auth of [null, ...wrong, 'Bearer hg_' + 'x'.repeat(43), 'Basic']) {
          const res = await request(route, path, auth);
          await res.body?.cancel();
          assert.equal(res.status, 401, `${what} with ${auth ?? 'no credentials'}`);
        }
        const right = await request(route, path, basicAuth(PASSWORD, 'solar-assistant'));
        await right.body?.cancel();
        assert.ok(
          right.status !== 401 && right.status !== 403 && right.status < 500,
          `${what} with the password answered ${right.status}`,
        );
      }),
    );
  }
});

test('each route answers the scopes it declares and 403 to smaller ones', async () => {
  const tokens: Record<string, string> = {};
  for (const scope of ['read', 'write', 'admin']) {
    const res = await server.api('/api/v1/tokens', jsonBody({ name: `walk-${scope}`, scope }));
    tokens[scope] = ((await res.json()) as { token: string }).token;
  }
  for (const route of server.routes.filter((r) => r.scope !== 'public')) {
    for (const [scope, token] of Object.entries(tokens)) {
      const res = await request(route, concrete(route.path).replace('/tokens/sim', '/tokens/none'), `Bearer ${token}`);
      const body = await res.text();
      const what = `${route.method} ${route.path} with a ${scope} token`;
      if (scopeAllows(scope as 'read', route.scope as 'read')) {
        assert.ok(res.status !== 403 && res.status !== 401 && res.status < 500, `${what}: ${res.status} ${body}`);
      } else {
        assert.equal(res.status, 403, what);
        assert.match(body, new RegExp(`has scope ${scope}, but .* needs scope ${route.scope}`));
      }
    }
  }
});

test('public routes answer without credentials', async () => {
  for (const route of server.routes.filter((r) => r.scope === 'public')) {
    const res = await server.api(route.path.replace(':file', 'index.html'), { method: route.method, auth: null });
    await res.body?.cancel();
    assert.notEqual(res.status, 401, `${route.method} ${route.path}`);
  }
});
