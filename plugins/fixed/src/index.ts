/**
 * A grid tariff without dynamic prices. It only names the provider, so GET /api/v1/grid
 * answers with that name and `pricing: null`; nothing is fetched or scheduled.
 */
import { definePlugin, z } from '@heliograph/plugins-sdk';

export const configSchema = z.object({
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
    .describe('Currency of your tariff (for display); leave empty if unknown.')
    .meta({ title: 'Currency' }),
});

export default definePlugin({
  id: 'fixed',
  configSchema,
  setup(ctx, config) {
    ctx.prices.declare({
      provider: config.provider,
      ...(config.currency ? { currency: config.currency } : {}),
      scheduleType: 'none',
    });
  },
});
