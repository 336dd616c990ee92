/**
 * A grid tariff with fixed prices: flat or time-of-use (HP/HC, Economy 7, peak/off-peak with
 * weekend rates and seasons), a standing charge per day and an export price, published to
 * the price book like a dynamic provider's (today and the next two local days, republished
 * every day), so the planner and the page cost energy with it. With only a name (and
 * currency) it declares a provider without prices: GET /api/v1/grid answers `pricing: null`.
 */
import { definePlugin, z } from '@heliograph/plugins-sdk';
import { expandTariff, type Tariff } from './expand.js';
import { periodSchema, scheduleProblems, type Schedule } from './tariff.js';

/** Today and the next two local days: the planner looks up to 48 h ahead from any hour. */
export const PUBLISHED_DAYS = 3;

const periods = (what: string) =>
  z
    .array(periodSchema)
    .min(1)
    .optional()
    .describe(
      `Time-of-use ${what} prices: periods of the local day, together covering every minute of every day once (instead of a flat price).`,
    );

export const configSchema = z
  .object({
    provider: z
      .string()
      .trim()
      .min(1)
      .default('Fixed tariff')
      .describe('Name of your electricity supplier or tariff, shown as the grid provider.')
      .meta({ title: 'Supplier or tariff name' }),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'a three-letter currency code such as EUR')
      .optional()
      .describe('Currency of your tariff; required once prices are given.')
      .meta({ title: 'Currency' }),
    importPrice: z
      .number()
      .finite()
      .optional()
      .describe('Flat import price in your currency per kWh, the same at every hour.')
      .meta({ title: 'Import price per kWh (flat)' }),
    importPeriods: periods('import').meta({ title: 'Import prices by time of day' }),
    standingCharge: z
      .number()
      .finite()
      .min(0)
      .optional()
      .describe('Standing charge (daily fixed charge) in your currency per day.')
      .meta({ title: 'Standing charge per day' }),
    exportPrice: z
      .number()
      .finite()
      .optional()
      .describe('Flat export (feed-in) price in your currency per kWh, positive when you are paid.')
      .meta({ title: 'Export price per kWh (flat)' }),
    exportPeriods: periods('export').meta({ title: 'Export prices by time of day' }),
  })
  .superRefine((config, ctx) => {
    const issue = (path: Array<string | number>, message: string) => ctx.addIssue({ code: 'custom', path, message });
    for (const side of ['import', 'export'] as const) {
      const flat = config[`${side}Price`];
      const list = config[`${side}Periods`];
      if (flat !== undefined && list)
        issue([`${side}Periods`], `give ${side}Price (flat) or ${side}Periods (time of use), not both`);
      for (const problem of list ? scheduleProblems(list, `${side}Periods`) : [])
        issue(problem.index === undefined ? [`${side}Periods`] : [`${side}Periods`, problem.index], problem.message);
    }
    const hasImport = config.importPrice !== undefined || config.importPeriods !== undefined;
    for (const key of ['standingCharge', 'exportPrice', 'exportPeriods'] as const)
      if (config[key] !== undefined && !hasImport)
        issue([key], `needs an import price: give importPrice (flat) or importPeriods (time of use) too`);
    if (hasImport && !config.currency)
      issue(['currency'], 'required with prices: the currency of your tariff, e.g. EUR');
  });

export type FixedConfig = z.output<typeof configSchema>;

/** The tariff a config describes, or null when it gives no import price (a name only). */
export function tariffOf(config: FixedConfig): Tariff | null {
  const schedule = (flat: number | undefined, list: FixedConfig['importPeriods']): Schedule | undefined =>
    flat !== undefined ? { flat } : list ? { periods: list } : undefined;
  const imports = schedule(config.importPrice, config.importPeriods);
  if (!imports) return null;
  const exports = schedule(config.exportPrice, config.exportPeriods);
  return {
    import: imports,
    ...(exports ? { export: exports } : {}),
    ...(config.standingCharge !== undefined ? { standingPerDay: config.standingCharge } : {}),
  };
}

export default definePlugin({
  id: 'fixed',
  configSchema,
  setup(ctx, config) {
    const tariff = tariffOf(config);
    ctx.prices.declare({
      provider: config.provider,
      ...(config.currency ? { currency: config.currency } : {}),
      scheduleType: !tariff ? 'none' : tariff.export ? 'import_export_pricing' : 'pricing',
    });
    if (!tariff) return;
    const publish = () =>
      ctx.prices.publish(expandTariff(tariff, { now: ctx.now(), zone: ctx.site.timeZone, days: PUBLISHED_DAYS }));
    publish();
    // Shortly after each local midnight, so the next two days are always known ahead.
    ctx.scheduler.daily({ name: 'publish', times: ['00:05'], run: publish });
  },
});
