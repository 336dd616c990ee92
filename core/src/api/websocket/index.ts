/* eslint-disable max-lines-per-function -- attachWebsocket wires the upgrade check and the hub in one closure; to split with the api/ folders */
import Router from '../router.js';
import type { IncomingMessage, Server } from 'node:http';
import { STATUS_CODES } from '../node-http.js';
import type { Duplex } from 'node:stream';
import type { TypedEmitter } from 'tiny-typed-emitter';
import type { DefaultState } from 'koa';
import type { WebSocket, WebSocketServer } from 'ws';
import { systemClock, type Clock } from '../../clock.js';
import { authError, credentialsFromQuery } from '../auth.js';
import type { Authenticator, AuthOutcome, Identity } from '../../auth/types.js';
import { HostPolicy } from '../host-policy.js';
import { createLogger } from '../../log.js';
import type { UpgradeRoutes } from '../../plugins/context/upgrades.js';
import type { SystemInfo } from '../../system/info.js';
import type { TopicRegistry } from '../../topics/registry.js';
import type { WriteService } from '../../writes/service.js';
import type { WebsocketApp } from '../app.js';
import { ApiError, errorBody } from '../errors.js';
import type { Client } from './client.js';
import { MetricsHub } from './hub.js';
import { formOfQuery } from './protocol.js';
import { systemTimers, type Timers } from './timers.js';
import { TokenSessions } from './token-sessions.js';

export { CLOSE_GOING_AWAY, CLOSE_IDLE, CLOSE_TOO_SLOW } from './client.js';
export { CLOSE_TOKEN_EXPIRED, CLOSE_TOKEN_REVOKED } from './token-sessions.js';
export type { Timers } from './timers.js';

const log = createLogger('websocket');

export const WEBSOCKET_PATH = '/api/websocket';

export interface WebsocketOptions {
  /** The app from createApp: the stream's route goes on its `app.ws`. */
  app: WebsocketApp;
  /** The HTTP server the REST API listens on; the stream shares its port. */
  server: Server;
  registry: TopicRegistry;
  auth: Authenticator;
  /** Product name for the `WWW-Authenticate` realm of a refused upgrade. */
  realm: string;
  writes: WriteService;
  /** The `system` rows pushed on join and once a minute (the same as GET /api/v1/system). */
  system: SystemInfo;
  clock?: Clock;
  timers?: Timers;
  /** Default 60 s (the API contract; docs/api.md, "WebSocket"). */
  idleTimeoutMs?: number;
  /** How often `system` rows are pushed; default one minute. */
  systemIntervalMs?: number;
  /** Bytes a socket may have queued before it is closed as too slow; default 256 KiB. */
  maxBufferedBytes?: number;
  /** A value not sent for this long is sent again; default 12 s (0: never). */
  refreshMs?: number;
  /** Which Host and Origin headers an upgrade may carry; default: see HostPolicy. */
  hosts?: HostPolicy;
  /**
   * Paths plugins took (`ctx.integration.acceptUpgrades`): an upgrade on one is handed to the
   * plugin as it came, with no credentials, Host or Origin checked here (the plugin checks).
   */
  upgrades?: Pick<UpgradeRoutes, 'find'>;
  /** Tells when a token is revoked (the AuthService), so its sockets close at once. */
  revocations?: Pick<TypedEmitter<{ revoked: (tokenId: string) => void }>, 'on' | 'off'>;
}

export interface WebsocketEndpoint {
  /** Open sockets. */
  readonly clientCount: number;
  /** Refuses new upgrades, closes every socket (1001) and detaches from the server. */
  close(): Promise<void>;
}

/**
 * Values that have not gone out for this long are sent again (docs/api.md): clients that
 * take a quiet stream for a dead one (the Homey app: 30 s) keep seeing data frames.
 */
export const VALUE_REFRESH_MS = 12_000;

/** Incoming frames are small requests; anything bigger is a mistake or an attack. */
const MAX_FRAME_BYTES = 64 * 1024;

/**
 * Serves the live stream at /api/websocket on an HTTP server: Phoenix Channels, both
 * serializers, channel `metrics` (docs/api.md, "WebSocket"). Choices the spec leaves open:
 * - server pushes carry `join_ref` null, like Phoenix broadcasts, so one framed push serves
 *   every socket; replies echo the request's `join_ref` and `ref`;
 * - close codes: 4000 idle (no frame for 60 s), 4008 too slow (send queue over the bound,
 *   default 256 KiB), 4001 token revoked, 4002 token expired, 1001 server shutting down;
 * - a join with an empty `topics` list gets the default filter; `topics` needs a non-empty one;
 * - `set` also takes a number or boolean value, as its text;
 * - `system` rows carry the discovery fields, as the topics' definitions do.
 *
 * Credentials are checked on the HTTP upgrade request, before any WebSocket exists (in the
 * server's `upgrade` handler, as ws recommends), so a refused client gets a plain HTTP
 * answer with the same status, headers and JSON body as the REST API (401 with the Bearer
 * challenge, 403, 429 with Retry-After), and failed attempts count toward the same
 * throttling. An accepted upgrade is handed to koa-websocket's server (`app.ws.listen` with
 * `noServer`), whose middleware routes it, through @koa/router on `app.ws`, to the stream.
 */
export function attachWebsocket(options: WebsocketOptions): WebsocketEndpoint {
  const clock = options.clock ?? systemClock;
  const timers = options.timers ?? systemTimers;
  const { app } = options;
  const hub = new MetricsHub({
    registry: options.registry,
    writes: options.writes,
    system: options.system,
    clock,
    timers,
    idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
    systemIntervalMs: options.systemIntervalMs ?? 60_000,
    maxBufferedBytes: options.maxBufferedBytes ?? 256 * 1024,
    refreshMs: options.refreshMs ?? VALUE_REFRESH_MS,
  });
  let closing = false;
  const hosts = options.hosts ?? new HostPolicy();
  const sessions = new TokenSessions<Client>(clock, timers, (client, code, reason) => hub.close(client, code, reason));
  const onRevoked = (tokenId: string) => sessions.revoked(tokenId);
  options.revocations?.on('revoked', onRevoked);
  /** Who each accepted upgrade request authenticated as, for the route that takes the socket. */
  const authenticated = new WeakMap<IncomingMessage, Identity>();

  app.ws.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      // koa-websocket only reports a failed middleware to its debug log.
      log.error('WebSocket connection setup failed', { err });
      ctx.websocket.close(1011, 'internal error; see the server log');
    }
  });
  // The router's context type wants the `params` and `router` it sets itself, which
  // koa-websocket's context type (koa's plus `websocket`) cannot promise beforehand.
  const routes = streamRoutes(hub, sessions, authenticated).routes();
  app.ws.use(async (ctx, next) => {
    await routes(ctx as unknown as Parameters<typeof routes>[0], next);
  });
  app.ws.listen({ noServer: true, clientTracking: false, perMessageDeflate: false, maxPayload: MAX_FRAME_BYTES });
  const wss: WebSocketServer = app.ws.server!;

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    void upgrade(req, socket, head).catch((err) => {
      log.error('WebSocket upgrade failed', { err });
      refuse(socket, new ApiError('INTERNAL_ERROR', 'internal error; see the server log'));
    });
  };

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    // Until ws owns the socket, a client that hangs up must not become an unhandled error.
    socket.on('error', ignore);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const pluginRoute = url.pathname === WEBSOCKET_PATH ? undefined : options.upgrades?.find(url.pathname);
    if (pluginRoute) {
      if (closing) return refuse(socket, shuttingDown());
      socket.off('error', ignore);
      return pluginRoute(req, socket, head);
    }
    if (url.pathname !== WEBSOCKET_PATH)
      return refuse(
        socket,
        new ApiError(
          'ENDPOINT_NOT_FOUND',
          `no WebSocket endpoint at ${url.pathname}; the live stream is at ${WEBSOCKET_PATH}`,
        ),
      );
    if (closing) return refuse(socket, shuttingDown());
    // Before credentials: a cross-site page's guesses must not count against the user's address.
    const hostProblem = hosts.hostProblem(req.headers.host);
    if (hostProblem) return refuse(socket, new ApiError('HOST_NOT_ALLOWED', hostProblem));
    const originProblem = hosts.originProblem(req.headers.origin, req.headers.host);
    if (originProblem) return refuse(socket, new ApiError('ORIGIN_NOT_ALLOWED', originProblem));
    const outcome: AuthOutcome = await options.auth.authenticate(
      credentialsFromQuery(url.searchParams, req.headers.authorization),
      req.socket.remoteAddress ?? '',
    );
    if (!outcome.ok) {
      return refuse(socket, authError(outcome, options.realm));
    }
    if (closing) return refuse(socket, shuttingDown());
    if (socket.destroyed) return;
    socket.off('error', ignore);
    const { ok: _ok, ...identity } = outcome;
    authenticated.set(req, identity);
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  }

  options.server.on('upgrade', onUpgrade);
  return {
    get clientCount() {
      return hub.clientCount;
    },
    async close() {
      closing = true;
      options.server.off('upgrade', onUpgrade);
      options.revocations?.off('revoked', onRevoked);
      sessions.clear();
      await hub.closeAll();
      wss.close();
    },
  };
}

/** What koa-websocket adds to the context of the routes mounted on app.ws. */
interface WebsocketContext {
  websocket: WebSocket;
}

/**
 * The stream's route on `app.ws`: the socket joins the hub as who its upgrade authenticated
 * as, and a token's socket is tracked so it closes when the token is revoked or expires.
 */
function streamRoutes(
  hub: MetricsHub,
  sessions: TokenSessions<Client>,
  authenticated: WeakMap<IncomingMessage, Identity>,
): Router<DefaultState, WebsocketContext> {
  const router = new Router<DefaultState, WebsocketContext>();
  router.get(WEBSOCKET_PATH, (ctx) => {
    const identity = authenticated.get(ctx.req);
    // Only upgrades that passed the check above reach app.ws; anything else is a bug.
    if (identity === undefined) throw new Error('a WebSocket reached the stream without an authenticated upgrade');
    const client = hub.connect(
      ctx.websocket,
      formOfQuery(new URLSearchParams(ctx.querystring)),
      identity.who,
      identity,
    );
    ctx.websocket.once('close', () => sessions.forget(client));
    sessions.track(client);
  });
  return router;
}

/**
 * A plain HTTP request to the stream's path (a browser, curl) answers 426 with what to do,
 * rather than "no such endpoint". Mount it with the public routers: it reveals nothing.
 */
export function upgradeRequiredRoutes(): Router {
  const router = new Router();
  router.all(WEBSOCKET_PATH, (ctx) => {
    ctx.status = 426;
    ctx.set('Upgrade', 'websocket');
    ctx.body = errorBody(
      `${WEBSOCKET_PATH} is a WebSocket endpoint (Phoenix Channels, channel "metrics"): connect with a WebSocket client and ?password= or ?token=`,
      'WEBSOCKET_UPGRADE_REQUIRED',
    );
  });
  return router;
}

function ignore(): void {}

const shuttingDown = () => new ApiError('SHUTTING_DOWN', 'the server is shutting down; reconnect in a moment');

/** Answers an upgrade request with a plain HTTP error, in the API's `{"error", "code"}` form. */
function refuse(socket: Duplex, error: ApiError): void {
  if (socket.destroyed) return;
  const { status, headers } = error;
  const body = JSON.stringify(errorBody(error.message, error.code));
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.once('finish', () => socket.destroy());
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
