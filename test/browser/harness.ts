import { PASSWORD, startWebServer } from '@heliograph/core/test/api-web/harness';
import { WEB_DIST } from './browser.js';

export { PASSWORD };

/**
 * The app the settings page talks to (core's web test harness: the echo fixture plugin on
 * inverter_1 through a real PluginHost, registry, writes, audit log and AuthService in a
 * temp SQLite file, on a manual clock), with the page served from web/dist.
 */
export function startPageServer(options: { password?: string | null } = {}) {
  return startWebServer({ staticDir: WEB_DIST, ...options });
}
