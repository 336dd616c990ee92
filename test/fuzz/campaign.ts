// The fuzz campaign: random queries, bodies, content types and path parameters on
// every registered route, and random frames on the stream, against the whole service.
// Properties: no 5xx, every error is the documented `{"error": "..."}`, the stream answers
// every bad frame with an error reply (never "internal error") and stays usable.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { WebSocket } from 'ws';
import type { RouteInfo } from '@heliograph/core/testing';
import {
  basicAuth,
  DEMO_SITE_PLUGIN,
  jsonBody,
  PASSWORD,
  startTestServer,
  type TestServer,
} from '../helpers/server.js';

/** The service the campaign runs against, and a token of each scope for it. */
export interface FuzzTarget {
  server: TestServer;
  tokens: Record<'read' | 'write', string>;
}

export async function startFuzzTarget(): Promise<FuzzTarget> {
  const server = await startTestServer({
    bundled: ['simulator'],
    plugins: [DEMO_SITE_PLUGIN],
    config: { auth: { maxFailedLogins: 1_000_000 } },
  });
  const tokens = { read: '', write: '' };
  for (const scope of ['read', 'write'] as const) {
    const res = await server.api('/api/v1/tokens', jsonBody({ name: `fuzz-${scope}`, scope }));
    tokens[scope] = ((await res.json()) as { token: string }).token;
  }
  return { server, tokens };
}

const KNOWN_KEYS = [
  'topic',
  'value',
  'discovery',
  'from',
  'to',
  'group_by',
  'agg',
  'limit',
  'name',
  'expires_at',
  'scope',
  'topics',
];

/** Strings that have broken parsers before: globs, times, numbers, encodings, control characters. */
const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '*',
    '?',
    '*'.repeat(40) + 'X',
    'total/*',
    'inverter_1/pv_power',
    '%',
    '%2F',
    '%00',
    '\u0000',
    '..',
    '../',
    '//',
  ),
  fc.constantFrom(
    '2026-11-22T10:00:00Z',
    '2026-11-22T10:00:00+99:99',
    '2026-02-31T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '0000-01-01T00:00:00Z',
  ),
  fc.constantFrom(
    '1s',
    '10s',
    '1h',
    '1d',
    '0s',
    '-1h',
    '1e9d',
    'mean',
    'max',
    'last',
    'sum',
    'median',
    'read',
    'write',
    'admin',
  ),
  fc.integer().map(String),
  fc.double().map(String),
  fc.string({ minLength: 300, maxLength: 2000 }),
);

const queryArb = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...KNOWN_KEYS), fc.string({ maxLength: 10 })), nasty), {
  maxLength: 5,
});

const bodyArb = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc
    .record({ topic: nasty, value: fc.oneof(nasty, fc.jsonValue()) }, { requiredKeys: [] })
    .map((v) => JSON.stringify(v)),
  fc
    .record({ name: nasty, expires_at: fc.oneof(nasty, fc.constant(null)), scope: nasty }, { requiredKeys: [] })
    .map((v) => JSON.stringify(v)),
  fc.string(),
  fc.string({ unit: 'binary' }),
);

const contentTypeArb = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/vnd.api+json',
  'json',
);

export type Credential = 'password' | 'read' | 'write' | 'none';
const credentialArb = fc.constantFrom<Credential>('password', 'password', 'read', 'write', 'none');

function authHeader(credential: Credential, tokens: Record<'read' | 'write', string>): string | null {
  if (credential === 'none') return null;
  if (credential === 'password') return basicAuth(PASSWORD, 'fuzz');
  return `Bearer ${tokens[credential]}`;
}

function buildPath(route: RouteInfo, param: string, query: Array<[string, string]>): string {
  const path = route.path.replace(/:(id|file)/, encodeURIComponent(param) || 'x');
  const search = new URLSearchParams(query).toString();
  return search ? `${path}?${search}` : path;
}

/**
 * The seed of a fuzz run: FUZZ_SEED when set (to replay a run), else a new one. Always
 * returned with the line to print, so any run, failing or not, can be replayed exactly.
 */
export function fuzzSeed(): { seed: number; line: string } {
  const given = process.env.FUZZ_SEED;
  if (given !== undefined && !/^-?\d+$/.test(given)) throw new Error(`FUZZ_SEED must be an integer, got "${given}"`);
  const seed = given !== undefined ? Number(given) : (Math.random() * 2 ** 31) | 0;
  return {
    seed,
    line: `fuzz seed ${seed}${given !== undefined ? ' (from FUZZ_SEED)' : ''}: replay with FUZZ_SEED=${seed}`,
  };
}

/** REST: any route, any query, body, content type and credentials: never a 5xx, always the error shape. */
export async function fuzzRest(target: FuzzTarget, numRuns: number, seed?: number): Promise<void> {
  const { server, tokens } = target;
  const routes = server.routes;
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...routes),
      nasty,
      queryArb,
      bodyArb,
      contentTypeArb,
      credentialArb,
      async (route, param, query, body, type, credential) => {
        const headers: Record<string, string> = {};
        if (type) headers['content-type'] = type;
        const hasBody = route.method !== 'GET' && body !== undefined;
        const res = await server.api(buildPath(route, param, query), {
          method: route.method,
          headers,
          body: hasBody ? body : undefined,
          auth: authHeader(credential, tokens),
        });
        const text = await res.text();
        const what = `${route.method} ${route.path} -> ${res.status} ${text.slice(0, 200)}`;
        assert.ok(res.status < 500, what);
        if (res.status >= 400 && route.scope !== 'public') {
          assert.match(res.headers.get('content-type') ?? '', /^application\/json/, what);
          const parsed = JSON.parse(text) as { error?: unknown };
          assert.equal(typeof parsed.error, 'string', what);
          assert.ok((parsed.error as string).length > 0, what);
        }
      },
    ),
    { numRuns, seed, endOnFailure: true },
  );
}

const refArb = fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.constant(null));
const eventArb = fc.oneof(
  fc.constantFrom('phx_join', 'join', 'phx_leave', 'leave', 'topics', 'set', 'heartbeat'),
  fc.string({ maxLength: 8 }),
);
const topicArb = fc.oneof(fc.constantFrom('metrics', 'phoenix'), fc.string({ maxLength: 8 }));
const filterArb = fc.array(
  fc.record(
    {
      topic: fc.oneof(nasty, fc.jsonValue()),
      max_frequency_s: fc.oneof(fc.double(), fc.integer(), fc.constant(null), fc.string()),
    },
    { requiredKeys: [] },
  ),
  { maxLength: 300 },
);
const payloadArb = fc.oneof(
  fc.jsonValue(),
  fc.record({ topics: fc.oneof(filterArb, fc.jsonValue()) }, { requiredKeys: [] }),
  fc.record({ topic: fc.oneof(nasty, fc.jsonValue()), value: fc.oneof(nasty, fc.jsonValue()) }, { requiredKeys: [] }),
);
const frameArb = fc.oneof(
  fc.tuple(refArb, refArb, topicArb, eventArb, payloadArb).map((f) => JSON.stringify(f)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string(),
  fc.string({ unit: 'binary' }),
);

interface Reply {
  ref: unknown;
  status?: unknown;
  reason?: unknown;
}

/** The stream: random frames on one v2 socket per run, then a heartbeat must still be answered. */
export async function fuzzWebsocket(target: FuzzTarget, numRuns: number, seed?: number): Promise<void> {
  const { server, tokens } = target;
  const base = server.url.replace('http', 'ws') + '/api/websocket?vsn=2.0.0&';
  await fc.assert(
    fc.asyncProperty(
      fc.array(frameArb, { minLength: 1, maxLength: 8 }),
      fc.constantFrom('read', 'write'),
      async (frames, scope) => {
        const ws = new WebSocket(base + `token=${tokens[scope]}`);
        const replies: Reply[] = [];
        let closedWith: number | undefined;
        let heartbeat: (() => void) | undefined;
        ws.on('message', (data: Buffer) => {
          const frame = JSON.parse(data.toString('utf8')) as unknown[];
          if (frame[3] !== 'phx_reply') return;
          const payload = frame[4] as { status?: unknown; response?: { reason?: unknown } };
          replies.push({ ref: frame[1], status: payload.status, reason: payload.response?.reason });
          if (frame[1] === 'fuzz-heartbeat') heartbeat?.();
        });
        ws.on('close', (code) => {
          closedWith = code;
          heartbeat?.();
        });
        await new Promise<void>((resolve, reject) => {
          ws.once('open', () => resolve());
          ws.once('error', reject);
        });
        for (const frame of frames) ws.send(frame);
        await new Promise<void>((resolve) => {
          heartbeat = resolve;
          ws.send(JSON.stringify([null, 'fuzz-heartbeat', 'phoenix', 'heartbeat', {}]));
        });
        ws.close();
        assert.equal(
          closedWith,
          undefined,
          `the socket was closed (${closedWith}) after ${JSON.stringify(frames).slice(0, 300)}`,
        );
        for (const reply of replies) {
          if (reply.status === 'error') {
            assert.equal(typeof reply.reason, 'string');
            assert.doesNotMatch(String(reply.reason), /internal error/, JSON.stringify(frames).slice(0, 300));
          }
        }
      },
    ),
    { numRuns, seed, endOnFailure: true },
  );
}
