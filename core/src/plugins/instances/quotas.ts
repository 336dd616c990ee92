import { z } from 'zod';

/** What one plugin instance may take of the server's shared resources. */
export interface PluginQuotas {
  /** Bytes of `ctx.store` (keys and JSON values) the instance may hold. */
  storeMaxBytes: number;
  /**
   * Bytes of one `ctx.store` value: one write is one statement on the database's one
   * connection, so a huge value would hold every API read and write behind it.
   */
  storeMaxValueBytes: number;
  /**
   * Publishes (`ctx.topics.publish`, `ctx.prices.publish`, `ctx.forecast.publish`) per second,
   * sustained. Bundled plugins are not limited unless their entry sets it.
   */
  publishesPerSecond: number;
}

export const DEFAULT_QUOTAS: PluginQuotas = {
  storeMaxBytes: 10 * 1024 * 1024,
  storeMaxValueBytes: 1024 * 1024,
  publishesPerSecond: 50,
};

/** The `quotas` key of a plugins.json instance entry; every field optional. */
export const quotasSchema = z
  .object({
    storeMaxBytes: z
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024 * 1024)
      .optional()
      .describe('Bytes of ctx.store the instance may hold (default 10485760, 10 MB).'),
    storeMaxValueBytes: z
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024)
      .optional()
      .describe('Bytes of one ctx.store value (default 1048576, 1 MB).'),
    publishesPerSecond: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe('Publishes per second, sustained (default 50; bursts of twice that pass).'),
  })
  .strict();

/** The defaults, overridden by the server's and then the instance's own settings. */
export function quotasOf(...layers: Array<Partial<PluginQuotas> | undefined>): PluginQuotas {
  const quotas = { ...DEFAULT_QUOTAS };
  for (const layer of layers)
    for (const [key, value] of Object.entries(layer ?? {}))
      if (value !== undefined) quotas[key as keyof PluginQuotas] = value;
  return quotas;
}
