/**
 * aWATTar day-ahead prices (EPEX spot, net of taxes) for Germany or Austria.
 *
 * Fetches the site's today and tomorrow every `refreshMinutes` and again shortly after the
 * day-ahead auction results appear (about 13:00 CET), so tomorrow shows up soon after
 * publication. Until then only today is published, which is not an error.
 */
import {
  definePlugin,
  localDays,
  refreshMinutesField,
  requestFailure,
  schedulePriceRefresh,
  z,
} from '@heliograph/plugins-sdk';
import { parseMarketdata } from './parse.js';

const serviceUrls = { de: 'https://api.awattar.de', at: 'https://api.awattar.at' } as const;

export const configSchema = z.object({
  country: z
    .enum(['de', 'at'])
    .default('de')
    .describe('Market area: "de" for Germany (api.awattar.de) or "at" for Austria (api.awattar.at).')
    .meta({ title: 'Market area', enumLabels: { de: 'Germany', at: 'Austria' } }),
  baseUrl: z
    .url()
    .optional()
    .describe('Address of the aWATTar API. Leave empty for the real service of the chosen country.')
    .meta({ title: 'API address' }),
  // aWATTar allows 100 requests a day per client. Every 15 minutes would spend 96 of them,
  // plus the day-ahead fetches, leaving nothing for retries or restarts; every 30 spends 51.
  refreshMinutes: refreshMinutesField({
    min: 30,
    description: 'Minutes between regular refreshes (30 at least: aWATTar allows 100 requests a day per client).',
  }),
});

/** Wall-clock times (Europe/Berlin) to look for tomorrow's prices, after the ~13:00 publication. */
export const dayAheadTimes = ['13:05', '13:30', '14:15'];

export default definePlugin({
  id: 'awattar',
  configSchema,
  setup(ctx, config) {
    const baseUrl = (config.baseUrl ?? serviceUrls[config.country]).replace(/\/+$/, '');
    ctx.prices.declare({ provider: 'aWATTar', currency: 'EUR', scheduleType: 'pricing' });

    async function refresh({ signal }: { signal: AbortSignal }): Promise<void> {
      const days = localDays({ now: ctx.now(), zone: ctx.site.timeZone });
      let body: string;
      try {
        body = await ctx.http
          .get(`${baseUrl}/v1/marketdata`, { searchParams: { start: days.todayStart, end: days.end }, signal })
          .text();
      } catch (error) {
        throw requestFailure({ provider: 'aWATTar', error, meanwhile: 'the last published prices stay' });
      }
      const slots = parseMarketdata(body);
      const tomorrow = slots.filter((slot) => slot.start >= days.tomorrowStart).length;
      if (slots.length === tomorrow) {
        throw new Error(`aWATTar has no prices for today (${days.today}); the last published prices stay.`);
      }
      ctx.prices.publish({ import: slots });
      ctx.log.info(
        tomorrow > 0
          ? `published ${slots.length} aWATTar slots for ${days.today} and ${days.tomorrow}`
          : `published ${slots.length} aWATTar slots for ${days.today}; ${days.tomorrow} is not published yet`,
      );
    }

    schedulePriceRefresh(ctx, {
      refreshMinutes: config.refreshMinutes,
      dayAhead: { times: dayAheadTimes, timeZone: 'Europe/Berlin' },
      run: refresh,
    });
  },
});
