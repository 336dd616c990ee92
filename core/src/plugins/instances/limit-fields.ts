import { z } from 'zod';

/** An optional whole-number limit of a plugins.json instance entry, from `min` to `max`. */
export function limitField(min: number, max: number, description: string) {
  return z.number().int().min(min).max(max).optional().describe(description);
}

/** The defaults, overridden by each layer's defined fields in turn (later layers win). */
export function withDefaults<T extends object>(defaults: T, ...layers: Array<Partial<T> | undefined>): T {
  const out = { ...defaults };
  for (const layer of layers)
    for (const [key, value] of Object.entries(layer ?? {}))
      if (value !== undefined) out[key as keyof T] = value as T[keyof T];
  return out;
}
