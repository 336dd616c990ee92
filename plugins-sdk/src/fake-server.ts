/**
 * A local fake of a web service for plugin tests: an HTTP server on 127.0.0.1 (a free port)
 * that records every request and lets the test answer it. Write the answers exactly in the
 * real service's wire format, so the test checks the plugin against what it will meet.
 *
 * `send` and `sendJson` take their arguments in order, as node's `response.writeHead` does:
 * they write to a response the test holds, and are not entry points the host calls.
 *
 * @example
 * import { sendJson, startFakeServer } from '@heliograph/plugins-sdk/fake-server';
 *
 * const fake = await startFakeServer({
 *   handle: (request, response) => {
 *     if (request.path !== '/v1/marketdata') return sendJson(response, 404, { error: 'Not Found' });
 *     sendJson(response, 200, { object: 'list', data: [] });
 *   },
 * });
 * const host = await startTestHost({ plugin, config: { baseUrl: fake.url } });
 * await host.runJob('refresh');
 * assert.equal(fake.requests[0]?.query.get('start'), String(todayStart));
 * await fake.close();
 *
 * @packageDocumentation
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A request the fake received, its body read in full.
 *
 * @example
 * assert.equal(fake.requests[0]?.headers.authorization, 'Bearer test-token');
 */
export interface SeenRequest {
  method: string;
  /** The path without the query string, e.g. `/v1/marketdata`. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The body as UTF-8 text (empty for a GET). */
  body: string;
}

/**
 * A running fake server.
 *
 * @example
 * const host = await startTestHost({ plugin, config: { baseUrl: fake.url } });
 * fake.requests.length = 0; // forget the requests of earlier tests
 */
export interface FakeServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  /** Every request received, oldest first. The test may empty it. */
  readonly requests: SeenRequest[];
  /** Stops the server, closing open connections too. */
  close(): Promise<void>;
}

/**
 * Answers one request. `url` is the fake's own base URL, for answers that link back to it
 * (a `next` page). A handler that throws answers HTTP 500 with the error, so the test sees it.
 *
 * @example
 * const handle: FakeHandler = (request, response, url) =>
 *   sendJson(response, 200, { results: [], next: `${url}${request.path}?page=2` });
 */
export type FakeHandler = (request: SeenRequest, response: ServerResponse, url: string) => void;

/** Fake servers started and not closed yet, for {@link stopFakeServers}. */
const open = new Set<FakeServer>();

/**
 * Closes every fake server not closed yet: one `after` hook, and a test that throws before
 * its own `close()` leaves nothing behind. (A forgotten server never keeps the test run
 * alive either: it does not hold the process open.)
 *
 * @example
 * after(() => stopFakeServers());
 */
export async function stopFakeServers(): Promise<void> {
  await Promise.all([...open].map((fake) => fake.close()));
}

/**
 * Starts a fake server on 127.0.0.1 on a free port. See the module's example.
 *
 * @example
 * const fake = await startFakeServer({ handle: (request, response) => send(response, 200, 'text/plain', 'ok') });
 */
export async function startFakeServer(options: { handle: FakeHandler }): Promise<FakeServer> {
  const { handle } = options;
  const requests: SeenRequest[] = [];
  let url = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const parsed = new URL(req.url ?? '/', url);
      const seen: SeenRequest = {
        method: req.method ?? 'GET',
        path: parsed.pathname,
        query: parsed.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      try {
        handle(seen, res, url);
      } catch (error) {
        send(res, 500, 'text/plain', `fake server failed: ${String(error)}`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closed: Promise<void> | undefined;
  const fake: FakeServer = {
    url,
    requests,
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        open.delete(fake);
        server.closeAllConnections();
        server.close(() => resolve());
      })),
  };
  open.add(fake);
  return fake;
}

/**
 * Sends a whole answer: status, content type, extra headers and body (with its
 * `content-length`, as real services send it).
 *
 * @example
 * send(response, 503, 'text/html', '<html><body>Wartungsarbeiten</body></html>', { 'retry-after': '120' });
 */
export function send(
  response: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  response.end(body);
}

/**
 * Sends `value` as a JSON answer.
 *
 * @example
 * sendJson(response, 401, { message: 'Unauthorized' });
 */
export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  send(response, status, 'application/json', JSON.stringify(value));
}
