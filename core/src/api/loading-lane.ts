import type { FastLane } from './app.js';

/**
 * Until the plugins are loaded (the server answers before, see container/plugin-load.ts), a
 * request under /api/v1/plugins (the list, an instance, its config, an added one) waits for
 * them and is then handed to koa, rather than answered with a list the load is still filling.
 * The router matches paths case-insensitively, and so does this.
 */
export function pluginsLoadedLane(loaded: Promise<void>): FastLane {
  let done = false;
  void loaded.then(() => (done = true));
  return (req, res, koa) => {
    if (done || !/^\/api\/v1\/plugins(?:[/?]|$)/i.test(req.url ?? '')) return false;
    void loaded.then(() => koa(req, res));
    return true;
  };
}
