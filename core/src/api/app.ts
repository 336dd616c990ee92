import Koa from 'koa';
import websockify from 'koa-websocket';
import Router from './router.js';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from './node-http.js';
import type { AddressInfo } from 'node:net';
import { requireAuth } from './auth.js';
import type { Authenticator } from '../auth/types.js';
import { jsonBody } from './body.js';
import { compression } from './compression.js';
import { errorHandler } from './errors.js';
import { hostAndOriginCheck, securityHeaders } from './hardening.js';
import { HostPolicy } from './host-policy.js';
import { rootGate } from './root-gate.js';
import { logAppError, logRequest } from './request-log.js';
import { listRoutes, requireDeclaredScopes, type RouteInfo } from './routes.js';

export interface AppOptions {
  auth: Authenticator;
  /** Product name for the `WWW-Authenticate` realm. */
  realm: string;
  /** One router per REST resource, with paths under /api/v1; mounted behind auth. */
  routers: Router[];
  /**
   * Routes that answer without credentials (the settings page's static files, the stream's
   * 426 hint). Everything else needs credentials, whatever path it asks for.
   */
  publicRouters?: Router[];
  /** Routers outside /api/v1 that need credentials like the API (GET /metrics for Prometheus). */
  rootRouters?: Router[];
  /** Which Host and Origin headers are answered; default: IP literals, localhost, .local names. */
  hosts?: HostPolicy;
}

const API_PREFIX = '/api/v1';

/** Every route the app serves with the scope it needs, read from the routers themselves. */
export function appRoutes(options: Pick<AppOptions, 'routers' | 'publicRouters' | 'rootRouters'>): RouteInfo[] {
  return [
    ...listRoutes(options.publicRouters ?? [], '', true),
    ...listRoutes(options.rootRouters ?? [], ''),
    ...listRoutes(options.routers, API_PREFIX),
  ];
}

/** The koa app with koa-websocket's `app.ws`, where the live stream's route is mounted. */
export type WebsocketApp = websockify.App;

/**
 * The koa app, kept apart from listening so tests drive it on an ephemeral port. Resource
 * routers are built by the composition root with exactly the services they need. It is
 * websockified (`app.ws`) but never listens through koa-websocket: the composition root
 * owns the HTTP server, and the stream attaches to it (see websocket/index.ts).
 */
export function createApp(options: AppOptions): WebsocketApp {
  const app = websockify(new Koa({ proxy: false }));
  // Every line of the log has a time: koa's own printer (console.error) has none.
  app.on('error', logAppError);
  app.use(securityHeaders());
  // Outside the error handler, so its answers are compressed like every other; the live
  // stream's upgrade never reaches koa's chain (websocket/index.ts), fast lanes compress alike.
  app.use(compression());
  app.use(errorHandler());
  app.use(hostAndOriginCheck(options.hosts ?? new HostPolicy()));
  const rootRouters = options.rootRouters ?? [];
  requireDeclaredScopes(rootRouters);
  app.use(rootGate(rootRouters, requireAuth({ auth: options.auth, realm: options.realm })));
  for (const router of rootRouters) app.use(router.routes());
  for (const router of options.publicRouters ?? []) app.use(router.routes());
  // Authentication is a gate in front of every route that is not declared public, not a
  // middleware on the /api/v1 prefix: the router matches paths case-insensitively, so a
  // prefix check let /API/V1/tokens through without credentials.
  app.use(requireAuth({ auth: options.auth, realm: options.realm }));

  const api = new Router({ prefix: API_PREFIX });
  requireDeclaredScopes(options.routers);
  api.use(jsonBody({ limitBytes: 64 * 1024 }));
  for (const router of options.routers) api.use(router.routes());
  app.use(api.routes());
  app.use(api.allowedMethods());
  return app;
}

/** koa's handler of a request (`app.callback()`). */
export type KoaHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * Answers a request before koa sees it (metrics/snapshot-lane.ts, history/lane.ts); returns
 * false to leave it to koa. A lane that took a request and then cannot answer it (a read
 * failed) hands it to `koa` untouched, so that answer is koa's.
 */
export type FastLane = (req: IncomingMessage, res: ServerResponse, koa: KoaHandler) => boolean;

export interface RunningServer {
  server: Server;
  /** `http://HOST:PORT` as it actually listens (port 0 resolved). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Listens on host:port (0 = a free port) and resolves once it accepts connections. Fast
 * lanes (see metrics/snapshot-lane.ts) may answer a request before koa does; the first
 * that takes it answers it.
 */
export async function listen(
  app: Koa,
  host: string,
  port: number,
  lanes: readonly FastLane[] = [],
): Promise<RunningServer> {
  const handle: KoaHandler = app.callback();
  // Koa's handler settles every request itself (errors go to ctx.onerror); nothing is left to catch.
  const server = createServer((req, res) => {
    logRequest(req, res);
    for (const lane of lanes) if (lane(req, res, handle)) return;
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
