import { after, before } from 'node:test';
import type { RunningServer } from '../../src/api/app.js';
import { forecastRoutes } from '../../src/api/forecast/route.js';
import type { ForecastResponse } from '../../src/contract/types.js';
import { ManualClock } from '../../src/clock.js';
import { ForecastStore } from '../../src/forecast/store.js';
import { TopicRegistry } from '../../src/topics/registry.js';
import { getJson, listenRoutes } from '../helpers/routes-server.js';

/**
 * GET /api/v1/forecast on its own server for a describe block: a store and registry on a
 * manual clock at `now`, listening before the block's tests (after `prepare`) and closed
 * after them. `get` answers with the body read as T (a ForecastResponse unless told).
 */
export function forecastApi(now: number, prepare?: (registry: TopicRegistry) => void) {
  const clock = new ManualClock(now);
  const registry = new TopicRegistry(clock);
  const store = new ForecastStore({ registry, clock, temperatureUnit: 'C' });
  let server: RunningServer;
  before(async () => {
    prepare?.(registry);
    server = await listenRoutes([forecastRoutes({ store, clock, registry })]);
  });
  after(() => server.close());
  const get = <T = ForecastResponse>(query: string) => getJson<T>(`${server.url}/api/v1/forecast${query}`);
  return { clock, registry, store, get };
}
