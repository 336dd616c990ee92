/**
 * Forecast.Solar plugin: weather/pv_power_predicted from Forecast.Solar's estimate, one call
 * per panel array, resampled to quarter hours and summed.
 *
 * The free plan allows 12 calls an hour per IP address, so fetches are spaced so that at
 * most half of that is used (other tools on the same network may share the quota). After
 * an HTTP 429 no call goes out before the answer's `retry-at`, even across a restart.
 */
import {
  apiAddressField,
  definePlugin,
  fetchIntervalField,
  plantLocation,
  pvPlantFields,
  secret,
  z,
} from '@heliograph/plugins-sdk';
import { fetchWatts, RateLimitedError } from './client.js';
import { resampleWatts } from './resample.js';

/** Calls per hour allowed on the free plan. */
const FREE_CALLS_PER_HOUR = 12;
const RETRY_AT_KEY = 'retryAt';

export const configSchema = z.object({
  baseUrl: apiAddressField({ default: 'https://api.forecast.solar', description: 'Forecast.Solar API base URL.' }),
  apiKey: secret(z.string().min(1, 'must not be empty'))
    .optional()
    .describe('API key of a paid plan; without one the free plan is used.')
    .meta({ title: 'API key' }),
  ...pvPlantFields,
  intervalMinutes: fetchIntervalField({
    description: 'Minutes between fetches; on the free plan at least 10 per array.',
  }),
});

export type ForecastSolarConfig = z.output<typeof configSchema>;

/** Minutes between fetches: on the free plan, each array's call spends a twelfth of the hour's quota. */
export function fetchIntervalMinutes(config: ForecastSolarConfig): number {
  if (config.apiKey) return config.intervalMinutes;
  return Math.max(config.intervalMinutes, Math.ceil((config.arrays.length * 60) / (FREE_CALLS_PER_HOUR / 2)));
}

export default definePlugin({
  id: 'forecast-solar',
  configSchema,
  setup(ctx, config) {
    const { latitude, longitude } = plantLocation(config, ctx.site);
    const intervalMinutes = fetchIntervalMinutes(config);
    if (intervalMinutes !== config.intervalMinutes)
      ctx.log.info(
        `fetching every ${intervalMinutes} minutes to stay within the free plan's ${FREE_CALLS_PER_HOUR} calls per hour`,
      );

    const waitingMessage = (retryAt: number) =>
      `Forecast.Solar's rate limit is reached (${FREE_CALLS_PER_HOUR} calls per hour on the free plan): no call before ${new Date(retryAt).toISOString()}; the last forecast stays`;

    ctx.scheduler.every({
      name: 'forecast',
      intervalMs: intervalMinutes * 60_000,
      run: async ({ signal }) => {
        const retryAt = await ctx.store.get<number>(RETRY_AT_KEY);
        if (retryAt !== undefined && ctx.now() < retryAt) throw new Error(waitingMessage(retryAt));

        const total = new Map<number, { watts: number; arrays: number }>();
        for (const array of config.arrays) {
          let watts;
          try {
            watts = await fetchWatts(ctx.http, {
              baseUrl: config.baseUrl,
              apiKey: config.apiKey,
              latitude,
              longitude,
              tilt: array.tilt,
              azimuth: array.azimuth,
              kWp: array.kWp,
              signal,
            });
          } catch (err) {
            if (!(err instanceof RateLimitedError)) throw err;
            // Without a usable retry-at, wait out the hour the quota is counted over.
            const until = err.retryAt ?? ctx.now() + 3_600_000;
            await ctx.store.set(RETRY_AT_KEY, until);
            throw new Error(waitingMessage(until), { cause: err });
          }
          for (const [time, power] of resampleWatts(watts, ctx.site.timeZone)) {
            const sum = total.get(time) ?? { watts: 0, arrays: 0 };
            sum.watts += Math.min(power, array.acLimitW ?? Number.POSITIVE_INFINITY);
            sum.arrays++;
            total.set(time, sum);
          }
        }
        // Arrays may cover different days; a quarter hour counts only where every array spoke.
        const points = [...total.entries()]
          .filter(([, sum]) => sum.arrays === config.arrays.length)
          .map(([time, sum]): [number, number] => [time, sum.watts])
          .sort((a, b) => a[0] - b[0]);
        ctx.forecast.publish({ series: { pv_power_predicted: points }, fetchedAt: ctx.now() });
        if (retryAt !== undefined) await ctx.store.delete(RETRY_AT_KEY);
      },
    });
  },
});
