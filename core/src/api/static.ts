import Router from './router.js';
// Not koa's Context: @types/koa-websocket adds `websocket` to it, which HTTP routes lack.
import type { ParameterizedContext as Context } from 'koa';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from './errors.js';
import type { OtherContent, Operations } from './operation.js';

// The page loads only its own files and talks only to this server; framing is refused so
// another site cannot overlay the device's settings (clickjacking).
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  // For browsers that predate CSP's frame-ancestors.
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/**
 * Built files named `<name>-<8 hash characters>.<ext>` never change; others may. send
 * passes the precompressed file's path (`.js.br`) when it serves that one.
 */
export const HASHED_FILE = /-[A-Z0-9]{8}\.[a-z0-9]+(\.br|\.gz)?$/;

function cacheControl(file: string): string {
  return HASHED_FILE.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache';
}

/**
 * The settings page's built files (web/dist) at `/` and `/<file>`, without credentials:
 * the page holds nothing secret, its API calls do. Only single-segment paths are served,
 * so nothing under /api is ever shadowed; @koa/send refuses paths that resolve outside
 * `dir` and hidden files, and sets the content type from the extension.
 */
export function staticRoutes(options: { dir: string }): Router {
  const { dir } = options;
  const router = new Router();

  // Whether the page is built is asked only once a file is missing, so a served file costs
  // no extra (blocking) stat, and a page built while the service runs is picked up at once.
  const notFound = (ctx: Context) => {
    if (existsSync(join(dir, 'index.html'))) return new ApiError('FILE_NOT_FOUND', `no such file: ${ctx.path}`);
    // No path in the answer: it goes to anyone on the network, signed in or not.
    return new ApiError(
      'PAGE_NOT_BUILT',
      'the settings page is not built: run `npm run build` in the Heliograph directory, then reload',
    );
  };

  const serve = async (ctx: Context, path: string) => {
    let served: string | undefined;
    try {
      // The bundle's file names carry a content hash (web/build.mjs), so those are cached
      // for a year; anything else (index.html, which names the current hashes) is
      // revalidated every time, so an upgrade is picked up at the next load. The build
      // writes .br and .gz beside each file; send picks one the browser accepts (and the
      // app's compression, compression.ts, leaves it as it is; a file without them it compresses).
      // Loaded at the first file asked for: @koa/send's bundle (with resolve-path and its
      // other dependencies) is ~390 kB of code that neither the start nor an API answer needs.
      const { send } = await import('@koa/send');
      served = await send(ctx, path, {
        root: dir,
        maxage: 0,
        brotli: true,
        gzip: true,
        setHeaders: (res, file) => {
          res.setHeader('Cache-Control', cacheControl(file));
          res.setHeader('Vary', 'Accept-Encoding');
        },
      });
    } catch (err) {
      const status = (err as { status?: number }).status;
      // @koa/send's own 404 carries the absolute file path in its message; do not show it.
      if (status === 404) throw notFound(ctx);
      // resolve-path's 400/403 ("Malicious Path", "Forbidden") for paths leaving dir.
      if (status === 400 || status === 403)
        throw new ApiError('FILE_REFUSED', `refused: ${ctx.path} is not a file of the settings page`, {}, status);
      throw err;
    }
    if (served === undefined) throw notFound(ctx);
    ctx.set(PAGE_HEADERS);
  };

  router.get('/', (ctx) => serve(ctx, '/index.html'));
  // ctx.path is still percent-encoded here; @koa/send decodes it once and then checks that
  // the result stays inside dir (so `/..%2Fpackage.json` is refused, not served).
  router.get('/:file', (ctx) => serve(ctx, ctx.path));
  return router;
}

const page: OtherContent = {
  contentType: 'text/html; charset=utf-8',
  description: 'The settings page (index.html)',
};

/** What @koa/send answers for the files web/build.mjs writes: the page, its script and style sheet. */
const pageFile: OtherContent = {
  contentType: ['text/html; charset=utf-8', 'text/javascript; charset=utf-8', 'text/css; charset=utf-8'],
  description: "A file of the settings page's build: index.html, its hashed script or style sheet",
};

export const staticOperations: Operations = {
  'GET /': { summary: 'The settings page', responses: { 200: page } },
  'GET /:file': { summary: "A file of the settings page's build", responses: { 200: pageFile } },
};
