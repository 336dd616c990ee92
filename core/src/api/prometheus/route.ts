import Router from '../router.js';
import type { ParameterizedContext as Context } from 'koa';
import type { Registry } from 'prom-client';
import { scope } from '../auth.js';
import { NO_QUERY, parseQuery } from '../query.js';

/**
 * GET /metrics: Prometheus's text format, built from the live registry at each scrape (see
 * metrics-export/prometheus.ts). Not GET /api/v1/metrics, the JSON snapshot. It needs scope
 * read, unless `open` (config `prometheus.openScrape`): then it is mounted with the public
 * routes and answers without credentials. `register` gives the registry, built at the first
 * scrape (prom-client is not loaded until then).
 */
export function prometheusRoutes(deps: { register: () => Promise<Registry>; open: boolean }): Router {
  const router = new Router();
  const scrape = async (ctx: Context) => {
    parseQuery(NO_QUERY, ctx.query);
    const register = await deps.register();
    const text = spellNaN(await register.metrics());
    ctx.set('Content-Type', register.contentType);
    ctx.body = text;
  };
  if (deps.open) router.get('/metrics', scrape);
  else router.get('/metrics', scope('read'), scrape);
  return router;
}

/**
 * prom-client writes a NaN sample as `Nan` (the event loop's mean lag before its first
 * measurement, say); the exposition format spells it `NaN`, and strict parsers refuse the
 * other spelling. Only a sample's value (the last field of a line) is touched.
 */
export function spellNaN(text: string): string {
  return text.replace(/ Nan$/gm, ' NaN');
}
