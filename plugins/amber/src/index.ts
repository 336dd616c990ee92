/**
 * Amber Electric (Australia): the site's general (import) and feed-in (export) prices per kWh
 * in AUD, GST included, from its actual, current and forecast intervals.
 *
 * Amber has no day-ahead auction to wait for: prices follow the NEM's 5-minute dispatch and
 * the forecast is extended as AEMO's pre-dispatch runs, so a frequent regular refresh (every
 * 5 minutes by default, well within Amber's 50 requests per 5 minutes) is the whole schedule.
 * Forecasts that do not yet reach the end of tomorrow are not an error.
 */
import {
  apiAddressField,
  definePlugin,
  localDays,
  refreshMinutesField,
  requestFailure,
  schedulePriceRefresh,
  secret,
  z,
} from '@heliograph/plugins-sdk';
import { parseIntervals } from './parse.js';

export const configSchema = z.object({
  siteId: z
    .string()
    .min(1)
    .describe('Your Amber site id (from GET /v1/sites with your API key, or the Amber app).')
    .meta({ title: 'Site id' }),
  apiKey: secret(z.string().min(1, 'must not be empty'))
    .describe('Amber API key (psk_...), created under Settings → Developers in the Amber web app.')
    .meta({ title: 'API key' }),
  resolution: z
    .union([z.literal(30), z.literal(5)])
    .default(30)
    .describe('Interval length in minutes: 30, or 5 for sites billed on 5-minute intervals.')
    .meta({ title: 'Interval length (minutes)' }),
  baseUrl: apiAddressField({ default: 'https://api.amber.com.au', description: 'Address of the Amber API.' }),
  refreshMinutes: refreshMinutesField({
    min: 1,
    max: 60,
    default: 5,
    description: 'Minutes between refreshes. Amber allows 50 requests per 5 minutes.',
  }),
});

export default definePlugin({
  id: 'amber',
  configSchema,
  setup(ctx, config) {
    const baseUrl = config.baseUrl.replace(/\/+$/, '');
    const step = config.resolution * 60_000;
    ctx.prices.declare({ provider: 'Amber Electric', currency: 'AUD', scheduleType: 'import_export_pricing' });

    async function refresh({ signal }: { signal: AbortSignal }): Promise<void> {
      const now = ctx.now();
      const days = localDays({ now, zone: ctx.site.timeZone });
      // Amber counts intervals around the current one: from local midnight up to it, and after it to the end of tomorrow.
      const current = Math.floor(now / step) * step;
      const previous = Math.max(0, Math.ceil((current - days.todayStart) / step));
      const next = Math.max(0, Math.ceil((days.end - current) / step) - 1);
      let body: string;
      try {
        body = await ctx.http
          .get(`${baseUrl}/v1/sites/${encodeURIComponent(config.siteId)}/prices/current`, {
            searchParams: { next, previous, resolution: config.resolution },
            headers: { authorization: `Bearer ${config.apiKey}` },
            signal,
          })
          .text();
      } catch (error) {
        throw requestFailure({
          provider: 'Amber',
          error,
          explainBody: amberMessage,
          meanwhile: 'the last published prices stay',
        });
      }
      const prices = parseIntervals(body);
      if (!prices.import.some((slot) => slot.start < days.tomorrowStart && slot.end > days.todayStart)) {
        throw new Error(
          `Amber sent no general prices for today (${days.today}) for site ${config.siteId}; the last published prices stay.`,
        );
      }
      ctx.prices.publish(prices);
      const last = prices.import.at(-1)!.end;
      ctx.log.info(
        `published ${prices.import.length} import and ${prices.export.length} export Amber slots` +
          (last < days.end
            ? `; the forecast reaches ${new Date(last).toISOString()}`
            : ` for ${days.today} and ${days.tomorrow}`),
      );
    }

    schedulePriceRefresh(ctx, { refreshMinutes: config.refreshMinutes, run: refresh });
  },
});

/** Amber error bodies are JSON with a `message`. */
function amberMessage(body: string): string | undefined {
  try {
    const message = (JSON.parse(body) as { message?: unknown }).message;
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}
