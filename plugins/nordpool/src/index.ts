/**
 * Nord Pool day-ahead prices of one delivery area, per kWh in the chosen currency.
 *
 * Nord Pool publishes by delivery day in CET (~13:00 CET for the next day) and answers 204
 * until then, which is not an error for a day that has not begun. The site's local days may
 * straddle two CET days (e.g. a site in Finland), so every CET day that overlaps them is
 * fetched and the slots are cut to the site's today and tomorrow.
 */
import {
  apiAddressField,
  currencyField,
  definePlugin,
  localDays,
  refreshMinutesField,
  requestFailure,
  schedulePriceRefresh,
  z,
  type PriceSlot,
} from '@heliograph/plugins-sdk';
import { DateTime } from 'luxon';
import { parseDayAheadPrices } from './parse.js';

const marketZone = 'Europe/Berlin';

export const configSchema = z.object({
  deliveryArea: z
    .string()
    .regex(/^[A-Z0-9-]{2,8}$/, 'a Nord Pool delivery area code such as SE3, NO1, DK2 or FI')
    .describe(
      'Delivery area (bidding zone) as Nord Pool names it: SE1-SE4, NO1-NO5, DK1, DK2, FI, EE, LV, LT, GER, AT, BE, FR, NL, PL...',
    )
    .meta({ title: 'Delivery area' }),
  currency: currencyField({
    default: 'EUR',
    examples: 'EUR or SEK',
    description: 'Currency to ask prices in: EUR, SEK, NOK, DKK, PLN...',
  }),
  baseUrl: apiAddressField({
    default: 'https://dataportal-api.nordpoolgroup.com',
    description: 'Address of the Nord Pool data portal API.',
  }),
  refreshMinutes: refreshMinutesField(),
});

/** Wall-clock times (CET) to look for tomorrow's prices, after the ~12:45-13:00 publication. */
export const dayAheadTimes = ['13:00', '13:30', '14:15'];

export default definePlugin({
  id: 'nordpool',
  configSchema,
  setup(ctx, config) {
    const baseUrl = config.baseUrl.replace(/\/+$/, '');
    ctx.prices.declare({ provider: 'Nord Pool', currency: config.currency, scheduleType: 'pricing' });

    /** The slots of one CET delivery day, or null when Nord Pool has not published it yet. */
    async function fetchDay(date: string, signal: AbortSignal): Promise<PriceSlot[] | null> {
      let response;
      try {
        response = await ctx.http.get(`${baseUrl}/api/DayAheadPrices`, {
          searchParams: { date, market: 'DayAhead', deliveryArea: config.deliveryArea, currency: config.currency },
          responseType: 'text',
          signal,
        });
      } catch (error) {
        throw requestFailure({ provider: 'Nord Pool', error, meanwhile: 'the last published prices stay' });
      }
      if (response.statusCode === 204) return null;
      return parseDayAheadPrices(response.body, config.deliveryArea, config.currency);
    }

    async function refresh({ signal }: { signal: AbortSignal }): Promise<void> {
      const now = ctx.now();
      const days = localDays({ now, zone: ctx.site.timeZone });
      const slots: PriceSlot[] = [];
      let unpublished: string | undefined;
      for (const date of marketDates(days.todayStart, days.end)) {
        const day = await fetchDay(date, signal);
        if (day === null) {
          if (DateTime.fromISO(date, { zone: marketZone }).toMillis() <= now) {
            throw new Error(
              `Nord Pool has no ${config.deliveryArea} prices for ${date}, a day that has begun; the last published prices stay.`,
            );
          }
          unpublished = date;
          break;
        }
        slots.push(...day.filter((slot) => slot.start >= days.todayStart && slot.start < days.end));
      }
      if (slots.length === 0)
        throw new Error(
          `Nord Pool has no ${config.deliveryArea} prices for today (${days.today}); the last published prices stay.`,
        );
      ctx.prices.publish({ import: slots });
      ctx.log.info(
        `published ${slots.length} Nord Pool ${config.deliveryArea} slots` +
          (unpublished
            ? `; delivery day ${unpublished} is not published yet`
            : ` for ${days.today} and ${days.tomorrow}`),
      );
    }

    schedulePriceRefresh(ctx, {
      refreshMinutes: config.refreshMinutes,
      dayAhead: { times: dayAheadTimes, timeZone: marketZone },
      run: refresh,
    });
  },
});

/** The CET delivery dates that overlap [start, end), oldest first. */
function marketDates(start: number, end: number): string[] {
  const dates: string[] = [];
  for (
    let day = DateTime.fromMillis(start, { zone: marketZone }).startOf('day');
    day.toMillis() < end;
    day = day.plus({ days: 1 })
  ) {
    dates.push(day.toISODate() ?? '');
  }
  return dates;
}
