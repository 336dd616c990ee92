// One API area's routes over real HTTP, for route tests that are not about credentials.
import assert from 'node:assert/strict';
import { createApp, listen, type RunningServer } from '../../src/api/app.js';
import type Router from '../../src/api/router.js';
import type { ErrorCode, ErrorResponse, HistoryResponse } from '../../src/contract/types.js';
import type { Authenticator } from '../../src/auth/types.js';

/** Signs every request in as the admin. */
export const allowAll: Authenticator = {
  authenticate: () => Promise.resolve({ ok: true, who: 'admin', scope: 'admin' as const }),
};

/** The app with only `routers`, every request signed in as the admin, on 127.0.0.1 on a free port. */
export function listenRoutes(routers: Router[]): Promise<RunningServer> {
  return listen(createApp({ auth: allowAll, realm: 'Heliograph', routers }), '127.0.0.1', 0);
}

/** A GET's answer: its status, content type, text and the text parsed as T. */
export interface JsonAnswer<T> {
  status: number;
  type: string;
  text: string;
  body: T;
}

export async function getJson<T>(url: string): Promise<JsonAnswer<T>> {
  const response = await fetch(url);
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    text,
    body: JSON.parse(text) as T,
  };
}

/** Checks an error answer: `status`, JSON of exactly `error` and `code`, the message and, if given, the code. */
export function assertErrorAnswer(
  what: string,
  answer: JsonAnswer<ErrorResponse>,
  expected: { status: number; message: RegExp; code?: ErrorCode },
): void {
  const { status, type, body } = answer;
  assert.equal(status, expected.status, `${what}: ${JSON.stringify(body)}`);
  assert.match(type, /^application\/json/);
  assert.deepEqual(Object.keys(body), ['error', 'code']);
  assert.match(body.error, expected.message, what);
  if (expected.code) assert.equal(body.code, expected.code, what);
}

const HEAD = ['topic', 'device', 'number', 'group', 'name', 'unit'] as const;

/** What a series answer (history, forecast) opens with: the topic and how clients name it. */
export type SeriesHead = Pick<HistoryResponse, (typeof HEAD)[number]>;

/** Checks a series answer's keys (the head's, then `rest` in order) and its head's values. */
export function assertSeriesHead(body: SeriesHead, expected: SeriesHead, rest: string[]): void {
  assert.deepEqual(Object.keys(body), [...HEAD, ...rest]);
  for (const key of HEAD) assert.equal(body[key], expected[key], key);
}
