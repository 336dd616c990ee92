/**
 * Tibber: the prices of the user's own Tibber subscription (`total` = energy + tax, VAT
 * included, per kWh), quarter-hourly by default.
 *
 * Tibber answers "today" and "tomorrow" of the home; "tomorrow" is empty until about 13:00
 * CET, which is not an error. Like the other price plugins, the slots are cut to the site's
 * local today and tomorrow, which differ from the home's days when the site's time zone does.
 * Refreshed every `refreshMinutes` and shortly after 13:00 CET.
 */
import {
  apiAddressField,
  currencyField,
  definePlugin,
  localDays,
  refreshMinutesField,
  requestFailure,
  schedulePriceRefresh,
  secret,
  z,
} from '@heliograph/plugins-sdk';
import { graphqlErrors, parsePriceInfo, priceQuery } from './parse.js';

export const configSchema = z.object({
  token: secret(z.string().min(1, 'must not be empty'))
    .describe('Personal access token from developer.tibber.com (Settings → Access token).')
    .meta({ title: 'Access token' }),
  homeId: z
    .string()
    .optional()
    .describe(
      'Id of the home to use when the account has several. Default: the first home with an active subscription.',
    )
    .meta({ title: 'Home id' }),
  currency: currencyField({
    default: 'EUR',
    examples: 'EUR, NOK or SEK',
    description: 'Currency of the Tibber subscription: EUR (Germany, Netherlands), NOK (Norway) or SEK (Sweden).',
  }),
  resolution: z
    .enum(['QUARTER_HOURLY', 'HOURLY'])
    .default('QUARTER_HOURLY')
    .describe('Price resolution to ask Tibber for. Tibber prices change every 15 minutes since 2025-10-01.')
    .meta({ title: 'Price resolution', enumLabels: { QUARTER_HOURLY: 'Every 15 minutes', HOURLY: 'Hourly' } }),
  baseUrl: apiAddressField({
    default: 'https://api.tibber.com',
    description: 'Address of the Tibber API (the GraphQL endpoint is /v1-beta/gql).',
  }),
  refreshMinutes: refreshMinutesField(),
});

/** Wall-clock times (Europe/Berlin) to look for tomorrow's prices, after the ~13:00 publication. */
export const dayAheadTimes = ['13:10', '13:40', '14:30'];

export default definePlugin({
  id: 'tibber',
  configSchema,
  setup(ctx, config) {
    const endpoint = `${config.baseUrl.replace(/\/+$/, '')}/v1-beta/gql`;
    ctx.prices.declare({ provider: 'Tibber', currency: config.currency, scheduleType: 'pricing' });

    async function refresh({ signal }: { signal: AbortSignal }): Promise<void> {
      const days = localDays({ now: ctx.now(), zone: ctx.site.timeZone });
      let body: string;
      try {
        body = await ctx.http
          .post(endpoint, {
            headers: { authorization: `Bearer ${config.token}` },
            json: { query: priceQuery(config.resolution) },
            signal,
          })
          .text();
      } catch (error) {
        throw requestFailure({
          provider: 'Tibber',
          error,
          explainBody: graphqlErrors,
          meanwhile: 'the last published prices stay',
        });
      }
      const prices = parsePriceInfo(body, config.resolution, config.homeId);
      if (prices.currency && prices.currency !== config.currency) {
        throw new Error(
          `Tibber prices are in ${prices.currency} but the currency setting says ${config.currency}: set currency to ${prices.currency}.`,
        );
      }
      const slots = prices.slots.filter((slot) => slot.start >= days.todayStart && slot.start < days.end);
      const today = slots.filter((slot) => slot.start < days.tomorrowStart).length;
      if (today === 0)
        throw new Error(
          `Tibber has no prices for today (${days.today}) for home ${prices.homeId}; the last published prices stay.`,
        );
      ctx.prices.publish({ import: slots });
      ctx.log.info(
        slots.length > today
          ? `published ${today} Tibber slots for today and ${slots.length - today} for tomorrow`
          : `published ${today} Tibber slots for today; tomorrow is not published yet`,
      );
    }

    schedulePriceRefresh(ctx, {
      refreshMinutes: config.refreshMinutes,
      dayAhead: { times: dayAheadTimes, timeZone: 'Europe/Berlin' },
      run: refresh,
    });
  },
});
