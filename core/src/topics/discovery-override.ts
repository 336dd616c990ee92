import { z } from 'zod';
import { formatZodError } from '@heliograph/plugins-sdk';
import type { DiscoveryOverride } from './topic-meta.js';

const overrideSchema = z.object({
  deviceClass: z
    .string()
    .regex(
      /^[a-z][a-z0-9_]*$/,
      'deviceClass must be a Home Assistant device class in lower snake case, e.g. "power" or "battery"',
    )
    .nullable()
    .optional(),
  stateClass: z
    .enum(['measurement', 'total', 'total_increasing'], {
      error: 'stateClass must be "measurement", "total", "total_increasing" or null',
    })
    .nullable()
    .optional(),
});

/**
 * The classes a plugin's metric or setting declaration sets for itself, checked (plugins
 * written in JavaScript get no compiler to catch a typo); undefined when it sets none.
 */
export function discoveryOverride(declaration: {
  name: string;
  deviceClass?: unknown;
  stateClass?: unknown;
}): DiscoveryOverride | undefined {
  if (declaration.deviceClass === undefined && declaration.stateClass === undefined) return undefined;
  const parsed = overrideSchema.safeParse({ deviceClass: declaration.deviceClass, stateClass: declaration.stateClass });
  if (!parsed.success)
    throw new Error(formatZodError(parsed.error, { source: `declaration of ${declaration.name}`, input: declaration }));
  const override: DiscoveryOverride = {};
  if (parsed.data.deviceClass !== undefined) override.deviceClass = parsed.data.deviceClass;
  if (parsed.data.stateClass !== undefined) override.stateClass = parsed.data.stateClass;
  return override;
}
