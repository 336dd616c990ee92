/* eslint-disable max-lines-per-function -- the plugin's setup (or its model's step) in one closure, as written before the limit */
/**
 * Octopus Energy Agile (UK): half-hourly import prices and, unless `exportProduct` is null,
 * Agile Outgoing export prices of the customer's region, in GBP per kWh, VAT included.
 *
 * Agile prices for 23:00 today to 23:00 tomorrow appear at about 16:00 UK time; before that
 * only today is published, which is not an error. Refreshed every `refreshMinutes` and a few
 * times after 16:00 Europe/London.
 */
import {
  apiAddressField,
  definePlugin,
  localDays,
  refreshMinutesField,
  requestFailure,
  schedulePriceRefresh,
  z,
  type LocalDays,
  type PriceSlot,
} from '@heliograph/plugins-sdk';
import { DateTime } from 'luxon';
import { mergeRates, parseRatesPage, type RatesPage } from './parse.js';

/** The 14 GSP regions; I and O are not used. */
const regions = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'J', 'K', 'L', 'M', 'N', 'P'] as const;
const productCode = z.string().regex(/^[A-Z0-9-]+$/, 'an Octopus product code such as AGILE-24-10-01');

export const configSchema = z.object({
  region: z
    .enum(regions)
    .describe(
      'Your region letter (A-P), the last letter of your tariff code, e.g. C for London in E-1R-AGILE-24-10-01-C.',
    )
    .meta({
      title: 'Region',
      // Shown instead of the bare letters in the settings page's choice list.
      enumLabels: {
        A: 'A: East England',
        B: 'B: East Midlands',
        C: 'C: London',
        D: 'D: Merseyside and North Wales',
        E: 'E: West Midlands',
        F: 'F: North East England',
        G: 'G: North West England',
        H: 'H: Southern England',
        J: 'J: South East England',
        K: 'K: South Wales',
        L: 'L: South West England',
        M: 'M: Yorkshire',
        N: 'N: South Scotland',
        P: 'P: North Scotland',
      },
    }),
  importProduct: productCode
    .default('AGILE-24-10-01')
    .describe('Product code of the import tariff (Agile).')
    .meta({ title: 'Import product code' }),
  exportProduct: productCode
    .nullable()
    .default('AGILE-OUTGOING-19-05-13')
    .describe('Product code of the export tariff (Agile Outgoing); empty for no export tariff (import prices only).')
    .meta({ title: 'Export product code' }),
  baseUrl: apiAddressField({
    default: 'https://api.octopus.energy',
    description: 'Address of the Octopus Energy API.',
  }),
  refreshMinutes: refreshMinutesField(),
});

/** Wall-clock times (Europe/London) to look for tomorrow's Agile prices, after the ~16:00 publication. */
export const dayAheadTimes = ['16:10', '16:45', '18:00'];

/** Octopus pages hold at most 1500 rates; a loop of `next` links beyond this is a broken answer. */
const maxPages = 20;

export default definePlugin({
  id: 'octopus',
  configSchema,
  setup(ctx, config) {
    const baseUrl = config.baseUrl.replace(/\/+$/, '');
    const exportProduct = config.exportProduct;
    ctx.prices.declare({
      provider: 'Octopus Energy',
      currency: 'GBP',
      scheduleType: exportProduct ? 'import_export_pricing' : 'pricing',
    });

    async function fetchRates(args: {
      product: string;
      days: LocalDays;
      meanwhile: string;
      signal: AbortSignal;
    }): Promise<PriceSlot[]> {
      const { product, days, meanwhile, signal } = args;
      const tariff = `E-1R-${product}-${config.region}`;
      const source = `Octopus answer for ${tariff}`;
      const utc = (ms: number) => DateTime.fromMillis(ms, { zone: 'utc' }).toISO({ suppressMilliseconds: true });
      let url: string | null =
        `${baseUrl}/v1/products/${product}/electricity-tariffs/${tariff}/standard-unit-rates/?` +
        new URLSearchParams({
          period_from: utc(days.todayStart) ?? '',
          period_to: utc(days.end) ?? '',
          page_size: '1500',
        }).toString();
      const rates: RatesPage['rates'] = [];
      for (let page = 1; url !== null; page++) {
        if (page > maxPages) throw new Error(`${source}: more than ${maxPages} pages of rates; ${meanwhile}.`);
        if (new URL(url).origin !== new URL(baseUrl).origin)
          throw new Error(`${source}: next page ${url} is not on ${baseUrl}; refusing to follow it.`);
        let body: string;
        try {
          body = await ctx.http.get(url, { signal }).text();
        } catch (error) {
          throw requestFailure({ provider: `Octopus Energy (${tariff})`, error, meanwhile });
        }
        const parsed = parseRatesPage({ body, source, openEnd: days.end, meanwhile });
        rates.push(...parsed.rates);
        url = parsed.next;
      }
      return mergeRates(rates);
    }

    async function refresh({ signal }: { signal: AbortSignal }): Promise<void> {
      const days = localDays({ now: ctx.now(), zone: ctx.site.timeZone });
      const importSlots = await fetchRates({
        product: config.importProduct,
        days,
        meanwhile: 'the last published prices stay',
        signal,
      });
      if (!importSlots.some((slot) => slot.start < days.tomorrowStart)) {
        throw new Error(
          `Octopus Energy has no ${config.importProduct} prices for today (${days.today}); the last published prices stay.`,
        );
      }
      // The export tariff is a second product: when only it fails, the import prices are
      // still worth publishing, and the job still fails so the status shows the export error.
      let exportSlots: PriceSlot[] | undefined;
      let exportFailure: { error: unknown } | undefined;
      if (exportProduct) {
        try {
          exportSlots = await fetchRates({
            product: exportProduct,
            days,
            meanwhile: 'the import prices are published and the last export prices stay',
            signal,
          });
        } catch (error) {
          if (signal.aborted) throw error;
          exportFailure = { error };
        }
      }
      ctx.prices.publish(exportSlots ? { import: importSlots, export: exportSlots } : { import: importSlots });
      const tomorrow = importSlots.filter((slot) => slot.start >= days.tomorrowStart).length;
      ctx.log.info(
        `published ${importSlots.length} import` +
          (exportSlots ? ` and ${exportSlots.length} export slots` : ' slots') +
          (tomorrow > 0 ? ` up to ${days.tomorrow}` : `; ${days.tomorrow} is not published yet`),
      );
      if (exportFailure) throw exportFailure.error;
    }

    schedulePriceRefresh(ctx, {
      refreshMinutes: config.refreshMinutes,
      dayAhead: { times: dayAheadTimes, timeZone: 'Europe/London' },
      run: refresh,
    });
  },
});
