import { z } from 'zod';
import { limitField, withDefaults } from './limit-fields.js';

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
    storeMaxBytes: limitField(
      1024,
      1024 * 1024 * 1024,
      'Bytes of ctx.store the instance may hold (default 10485760, 10 MB).',
    ),
    storeMaxValueBytes: limitField(1024, 16 * 1024 * 1024, 'Bytes of one ctx.store value (default 1048576, 1 MB).'),
    publishesPerSecond: limitField(
      1,
      10_000,
      'Publishes per second, sustained (default 50; bursts of twice that pass).',
    ),
  })
  .strict();

/** The defaults, overridden by the server's and then the instance's own settings. */
export function quotasOf(...layers: Array<Partial<PluginQuotas> | undefined>): PluginQuotas {
  return withDefaults(DEFAULT_QUOTAS, ...layers);
}
