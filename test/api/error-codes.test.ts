// Every error answer's `code` (core/src/api/error-codes.ts), each produced over real HTTP by
// the situation it names against the whole service, and the list in docs/api.md held to the
// table so the two cannot drift. A few situations need a broken disk, a stopping stream, an
// empty registry, two client addresses or a forecast plugin caught between runs: those codes
// are asserted where that setup lives (PROVED_ELSEWHERE), and this file checks that each
// named test does assert its code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ERROR_CODES, type ErrorCode } from '@heliograph/core/testing';
import { jsonBody, PASSWORD, REPO_ROOT, startTestServer, type TestServer } from '../helpers/server.js';
import { rawRequest } from '../helpers/raw-http.js';

const server: TestServer = await startTestServer({
  bundled: ['simulator'],
  fixtures: ['echo'],
  plugins: [
    { id: 'inv', plugin: 'echo', devices: ['inverter_1'] },
    { id: 'sim', plugin: 'simulator', devices: ['inverter_3', 'battery_1'], config: { demoPrices: false } },
    { id: 'ghost', plugin: 'not-installed', enabled: false, devices: ['inverter_4'] },
  ],
});
/** No plugins at all: no forecast plugin. */
const empty: TestServer = await startTestServer({ plugins: [] });
/** First run: no password yet. */
const fresh: TestServer = await startTestServer({ plugins: [], password: null });

interface Answer {
  status: number;
  body: string;
}

const asAnswer = async (res: Response): Promise<Answer> => ({ status: res.status, body: await res.text() });
const api = (s: TestServer, path: string, init?: Parameters<TestServer['api']>[1]) => s.api(path, init).then(asAnswer);
const raw = (path: string, options: Parameters<typeof rawRequest>[1]) => rawRequest(server.url + path, options);

async function token(scope: 'read' | 'write' | 'admin', name: string): Promise<string> {
  const res = await server.api('/api/v1/tokens', jsonBody({ name, scope }));
  assert.equal(res.status, 201, 'the token is created');
  return ((await res.json()) as { token: string }).token;
}

async function wrongSetupCode(): Promise<Answer> {
  return api(fresh, '/api/v1/setup', {
    ...jsonBody({ code: 'AAAA-AAAA', password: 'a long new password' }),
    auth: null,
  });
}

/** Writes as a fresh token's client until the per-client write limit answers. */
async function writeUntilLimited(): Promise<Answer> {
  const auth = `Bearer ${await token('write', 'flood')}`;
  for (let i = 0; i < 60; i++) {
    const answer = await api(server, '/api/v1/metrics', { ...jsonBody({ topic: 'nope/unknown', value: '1' }), auth });
    if (answer.status !== 422) return answer;
  }
  throw new Error('no answer but 422 within 60 writes: the write limit never answered');
}

const HOUR = 3600_000;
const utc = (ms: number) => new Date(ms).toISOString().slice(0, 19) + 'Z';

/** The situation each code names, in the table's order; each answer must carry that code. */
const CASES: Array<[ErrorCode, string, () => Promise<Answer>]> = [
  ['ENDPOINT_NOT_FOUND', 'a path no route has', () => api(server, '/api/v1/nothing')],
  ['METHOD_NOT_ALLOWED', 'PUT on the snapshot', () => api(server, '/api/v1/metrics', { method: 'PUT' })],
  ['METHOD_NOT_SUPPORTED', 'PROPFIND', () => api(server, '/api/v1/metrics', { method: 'PROPFIND' })],
  [
    'HOST_NOT_ALLOWED',
    'a Host that is not this unit',
    () => raw('/api/v1/grid', { headers: { host: 'evil.example' } }),
  ],
  [
    'ORIGIN_NOT_ALLOWED',
    'a page of another site',
    () => raw('/api/v1/grid', { headers: { origin: 'https://evil.example' } }),
  ],
  [
    'BODY_NOT_JSON',
    'a text body',
    () => api(server, '/api/v1/metrics', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }),
  ],
  [
    'BODY_TOO_LARGE',
    'a 70 KB body',
    () => api(server, '/api/v1/metrics', jsonBody({ topic: 'x'.repeat(70_000), value: '1' })),
  ],
  ['BODY_MALFORMED', 'broken JSON', () => api(server, '/api/v1/metrics', jsonBody('{"topic":'))],
  ['BODY_INVALID', 'a write without a value', () => api(server, '/api/v1/metrics', jsonBody({ topic: 'a/b' }))],
  ['QUERY_INVALID', 'an unknown query parameter', () => api(server, '/api/v1/grid?colour=red')],
  ['AUTH_FAILED', 'no credentials', () => api(server, '/api/v1/grid', { auth: null })],
  [
    'NO_PASSWORD_SET',
    'a password before one is set',
    () => api(fresh, '/api/v1/grid', { auth: 'Basic ' + Buffer.from(`admin:${PASSWORD}`).toString('base64') }),
  ],
  [
    'SCOPE_TOO_LOW',
    'a write with a read token',
    async () =>
      api(server, '/api/v1/metrics', {
        ...jsonBody({ topic: 'inverter_1/pv_power', value: '1' }),
        auth: `Bearer ${await token('read', 'reader')}`,
      }),
  ],
  ['SETUP_CODE_WRONG', 'a wrong setup code', wrongSetupCode],
  [
    'TOO_MANY_ATTEMPTS',
    'a sixth wrong setup code in a row',
    async () => {
      for (let i = 0; i < 4; i++) assert.equal((await wrongSetupCode()).status, 401, `wrong code ${i + 2}`);
      return wrongSetupCode();
    },
  ],
  ['WEBSOCKET_UPGRADE_REQUIRED', 'plain HTTP to the stream', () => api(server, '/api/websocket')],
  ['METRIC_NOT_FOUND', 'value=1 for a topic nobody has', () => api(server, '/api/v1/metrics?topic=nope/x&value=1')],
  ['METRIC_NOT_SINGLE', 'value=1 for a glob', () => api(server, '/api/v1/metrics?topic=inverter_1/*&value=1')],
  [
    'WRITE_REFUSED',
    'a write to a reading',
    () => api(server, '/api/v1/metrics', jsonBody({ topic: 'inverter_1/pv_power', value: '5' })),
  ],
  ['WRITE_RATE_LIMITED', 'writes past the per-client limit', writeUntilLimited],
  ['TOPIC_UNKNOWN', 'history of a topic nobody has', () => api(server, '/api/v1/history?topic=nope/x')],
  [
    'HISTORY_RANGE_INVALID',
    'history from after to',
    () => api(server, `/api/v1/history?topic=total/pv_power&from=${utc(Date.now())}&to=${utc(Date.now() - HOUR)}`),
  ],
  ['HISTORY_NOT_RECORDED', 'history of a battery metric', () => api(server, '/api/v1/history?topic=battery_1/voltage')],
  [
    'FORECAST_RANGE_INVALID',
    'a forecast from after to',
    () =>
      api(
        server,
        `/api/v1/forecast?topic=weather/pv_power_predicted&from=${utc(Date.now() + HOUR)}&to=${utc(Date.now())}`,
      ),
  ],
  ['GRID_RANGE_INVALID', 'prices from without to', () => api(server, `/api/v1/grid?from=${utc(Date.now() - HOUR)}`)],
  [
    'FORECAST_NOT_CONFIGURED',
    'a forecast without a forecast plugin',
    () => api(empty, '/api/v1/forecast?topic=weather/pv_power_predicted'),
  ],
  [
    'FORECAST_NOT_A_FORECAST_TOPIC',
    'a forecast of a reading',
    () => api(server, '/api/v1/forecast?topic=inverter_1/pv_power'),
  ],
  [
    'PLUGIN_INSTANCE_NOT_FOUND',
    'an instance nobody added',
    () => api(server, '/api/v1/plugins/nope', { method: 'DELETE' }),
  ],
  [
    'PLUGIN_INSTANCE_EXISTS',
    'adding an id in use',
    () => api(server, '/api/v1/plugins', jsonBody({ id: 'inv', plugin: 'echo', devices: ['inverter_2'] })),
  ],
  [
    'PLUGIN_NOT_LOADABLE',
    'the form of an instance whose plugin is missing',
    () => api(server, '/api/v1/plugins/ghost/config'),
  ],
  [
    'PLUGINS_NOT_SAVED',
    'removing an instance while plugins.json cannot be written',
    () => {
      mkdirSync(join(dirname(server.dataDir), 'plugins.json.tmp'));
      return api(server, '/api/v1/plugins/ghost', { method: 'DELETE' });
    },
  ],
  [
    'SETTINGS_NOT_SAVED',
    'changing a setting while config.json cannot be written',
    () => {
      mkdirSync(join(server.dataDir, 'config.json.tmp'));
      return api(server, '/api/v1/config', { ...jsonBody({ site: { name: 'Roof' } }), method: 'PUT' });
    },
  ],
  ['TOKEN_NOT_FOUND', 'revoking a token nobody has', () => api(server, '/api/v1/tokens/nope', { method: 'DELETE' })],
  [
    'TOKEN_NAME_TAKEN',
    'a second token of one name',
    async () => {
      await token('read', 'twice');
      return api(server, '/api/v1/tokens', jsonBody({ name: 'twice' }));
    },
  ],
  [
    'SETUP_DONE',
    'setup once a password is set',
    () =>
      api(server, '/api/v1/setup', { ...jsonBody({ code: 'AAAA-AAAA', password: 'a long new password' }), auth: null }),
  ],
  ['FILE_NOT_FOUND', 'a file the page does not have', () => api(server, '/nothing.js', { auth: null })],
  ['FILE_REFUSED', 'a path out of the page', () => api(server, '/..%2Fpackage.json', { auth: null })],
];

/** Codes whose situation needs a setup of its own; the named test asserts the code. */
const PROVED_ELSEWHERE: Partial<Record<ErrorCode, string>> = {
  AUTH_BUSY: 'core/test/api-web/error-situations.test.ts',
  BACKUP_NOT_FOUND: 'test/api/backups.test.ts',
  BACKUP_FAILED: 'test/api/backups.test.ts',
  RESTORE_UPLOAD_INVALID: 'test/api/backups.test.ts',
  RESTORE_REFUSED: 'test/api/backups.test.ts',
  NO_METRICS: 'core/test/api-web/error-situations.test.ts',
  REQUEST_REFUSED: 'core/test/api-web/disk-full.test.ts',
  INTERNAL_ERROR: 'core/test/api-web/disk-full.test.ts',
  DISK_FULL: 'core/test/api-web/disk-full.test.ts',
  SHUTTING_DOWN: 'core/test/websocket/auth.test.ts',
  HISTORY_UNAVAILABLE: 'test/api/damaged-db.test.ts',
  FORECAST_NOT_FETCHED: 'core/test/forecast/api.test.ts',
  FORECAST_NOT_PROVIDED: 'core/test/forecast/api.test.ts',
  PAGE_NOT_BUILT: 'core/test/api-web/static.test.ts',
  GRANT_MISSING: 'test/integrations/plugin-grants.test.ts',
  PLUGIN_INSTANCE_IN_USE: 'test/api/source-choice.test.ts',
};

function statuses(code: ErrorCode): number[] | '4xx' {
  const status: number | readonly number[] | '4xx' = ERROR_CODES[code].status;
  return typeof status === 'number' ? [status] : status === '4xx' ? '4xx' : [...status];
}

for (const [code, situation, answer] of CASES) {
  test(`${code}: ${situation}`, async () => {
    const { status, body } = await answer();
    const parsed = JSON.parse(body) as { error?: unknown; code?: unknown };
    assert.equal(parsed.code, code, `${situation}: ${status} ${body}`);
    assert.ok(typeof parsed.error === 'string' && parsed.error.length > 0, 'the words are still there');
    const expected = statuses(code);
    assert.ok(expected === '4xx' || expected.includes(status), `${code} answers ${String(expected)}, got ${status}`);
  });
}

test('every code of the table is produced here or by the test named for it', () => {
  const here = new Set(CASES.map(([code]) => code));
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
    const file = PROVED_ELSEWHERE[code];
    assert.ok(here.has(code) || file, `${code} has a case`);
    if (file) {
      assert.ok(!here.has(code), `${code} is proved once`);
      assert.ok(readFileSync(join(REPO_ROOT, file), 'utf8').includes(`'${code}'`), `${file} asserts ${code}`);
    }
  }
});

test('docs/api.md lists exactly the table: each code, its status and its meaning, in order', () => {
  const docs = readFileSync(join(REPO_ROOT, 'docs/api.md'), 'utf8');
  const rows = [...docs.matchAll(/^\| `([A-Z_]+)` +\| ([^|]+?) +\| (.+?) +\|$/gm)].map(([, code, status, meaning]) => [
    code,
    status,
    meaning,
  ]);
  const table = Object.entries(ERROR_CODES).map(([code, { status, meaning }]) => [
    code,
    typeof status === 'number' || status === '4xx' ? String(status) : status.join(', '),
    meaning,
  ]);
  assert.deepEqual(rows, table);
});
