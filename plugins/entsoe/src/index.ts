/**
 * ENTSO-E Transparency Platform: day-ahead prices (document A44) of any European bidding
 * zone, per kWh. Needs a free security token (ask ENTSO-E for "Restful API access").
 *
 * Today and tomorrow are asked separately: tomorrow answers "no matching data" (reason 999)
 * until the auction results are out (~13:00 CET), which is not an error; for today it is.
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
  type PriceSlot,
} from '@heliograph/plugins-sdk';
import { DateTime } from 'luxon';
import { acknowledgementReason, type DayAheadAnswer, parseDayAhead } from './parse.js';

export const configSchema = z.object({
  securityToken: secret(z.string().min(1, 'must not be empty'))
    .describe('Your ENTSO-E Transparency Platform API security token.')
    .meta({ title: 'Security token' }),
  area: z
    .string()
    .regex(/^[0-9A-Z-]{16}$/, 'a 16-character EIC area code such as 10Y1001A1001A82H')
    .describe(
      'EIC code of the bidding zone, e.g. 10Y1001A1001A82H (DE-LU), 10YAT-APG------L (AT), 10YNL----------L (NL), 10YFR-RTE------C (FR).',
    )
    .meta({ title: 'Bidding zone (EIC code)' }),
  currency: currencyField({
    default: 'EUR',
    description: 'Currency of the published prices; ENTSO-E publishes day-ahead prices in EUR.',
  }),
  baseUrl: apiAddressField({
    default: 'https://web-api.tp.entsoe.eu',
    description: 'Address of the ENTSO-E Transparency Platform API.',
  }),
  refreshMinutes: refreshMinutesField({
    description: 'Minutes between regular refreshes (ENTSO-E allows 400 requests a minute).',
  }),
});

/** Wall-clock times (CET) to look for tomorrow's prices, after the ~13:00 publication. */
export const dayAheadTimes = ['13:15', '13:45', '14:30'];

export default definePlugin({
  id: 'entsoe',
  configSchema,
  setup(ctx, config) {
    const baseUrl = config.baseUrl.replace(/\/+$/, '');
    ctx.prices.declare({ provider: 'ENTSO-E', currency: config.currency, scheduleType: 'pricing' });

    async function fetchPeriod(start: number, end: number, signal: AbortSignal): Promise<DayAheadAnswer> {
      const stamp = (ms: number) => DateTime.fromMillis(ms, { zone: 'utc' }).toFormat('yyyyMMddHHmm');
      let body: string;
      try {
        body = await ctx.http
          .get(`${baseUrl}/api`, {
            searchParams: {
              securityToken: config.securityToken,
              documentType: 'A44',
              in_Domain: config.area,
              out_Domain: config.area,
              periodStart: stamp(start),
              periodEnd: stamp(end),
            },
            signal,
          })
          .text();
      } catch (error) {
        // ENTSO-E may send "no matching data" with an error status too.
        const failed = error as { response?: { statusCode?: number; body?: unknown } };
        const reply = typeof failed.response?.body === 'string' ? failed.response.body : '';
        if (failed.response?.statusCode === 400 && acknowledgementReason(reply))
          return parseDayAhead(reply, config.currency);
        throw requestFailure({
          provider: 'ENTSO-E',
          error,
          explainBody: acknowledgementReason,
          meanwhile: 'the last published prices stay',
        });
      }
      return parseDayAhead(body, config.currency);
    }

    async function refresh({ signal }: { signal: AbortSignal }): Promise<void> {
      const days = localDays({ now: ctx.now(), zone: ctx.site.timeZone });
      const today = await fetchPeriod(days.todayStart, days.tomorrowStart, signal);
      if ('noData' in today) throw new Error(`ENTSO-E has no prices for today (${days.today}): ${today.noData}`);
      const tomorrow = await fetchPeriod(days.tomorrowStart, days.end, signal);

      // Answers hold whole market days, which need not match the site's days: cut and merge.
      const byStart = new Map<number, PriceSlot>();
      for (const slot of [...today.slots, ...('slots' in tomorrow ? tomorrow.slots : [])]) {
        if (slot.start >= days.todayStart && slot.start < days.end) byStart.set(slot.start, slot);
      }
      const slots = [...byStart.values()].sort((a, b) => a.start - b.start);
      ctx.prices.publish({ import: slots });
      ctx.log.info(
        'slots' in tomorrow
          ? `published ${slots.length} ENTSO-E slots for ${days.today} and ${days.tomorrow}`
          : `published ${slots.length} ENTSO-E slots for ${days.today}; ${days.tomorrow} is not published yet (${tomorrow.noData})`,
      );
    }

    schedulePriceRefresh(ctx, {
      refreshMinutes: config.refreshMinutes,
      dayAhead: { times: dayAheadTimes, timeZone: 'Europe/Berlin' },
      run: refresh,
    });
  },
});
