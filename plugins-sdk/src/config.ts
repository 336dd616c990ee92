import { z } from 'zod';

/**
 * Marks a config field as a secret (an API key, a token, a password): write-only. The
 * settings API never shows its value, only that one is set; its JSON Schema carries
 * `"writeOnly": true`; a form saved without it keeps the stored one; the audit log shows
 * `***` for it. Works on top-level fields and fields of nested objects.
 *
 * @example
 * import { definePlugin, secret, z } from '@heliograph/plugins-sdk';
 * const configSchema = z.object({
 *   token: secret(z.string().min(1)).describe('Personal access token from developer.tibber.com'),
 * });
 */
export function secret<T extends z.ZodType>(schema: T): T {
  return schema.meta({ ...(schema.meta() ?? {}), secret: true, writeOnly: true });
}

/**
 * Whether a JSON Schema node (from `z.toJSONSchema`) describes a secret field, including
 * one made optional or nullable around the marked schema.
 *
 * @example
 * isSecretSchema({ type: 'string', writeOnly: true }); // true
 */
export function isSecretSchema(node: unknown): boolean {
  if (node === null || typeof node !== 'object') return false;
  const n = node as { writeOnly?: unknown; secret?: unknown; anyOf?: unknown; oneOf?: unknown; allOf?: unknown };
  if (n.writeOnly === true || n.secret === true) return true;
  for (const list of [n.anyOf, n.oneOf, n.allOf]) if (Array.isArray(list) && list.some(isSecretSchema)) return true;
  return false;
}

/**
 * A whole number of minutes between `min` and `max`, with a default, a form title and help
 * text, refused in plain words ("must be from 15 to 1440 (minutes)"): how a plugin asks how
 * often to fetch.
 *
 * @example
 * import { minutesField, z } from '@heliograph/plugins-sdk';
 * const configSchema = z.object({
 *   refreshMinutes: minutesField({ min: 15, max: 1440, default: 60, title: 'Refresh every (minutes)', description: 'Minutes between regular refreshes.' }),
 * });
 */
export function minutesField(options: {
  min: number;
  max: number;
  default: number;
  title: string;
  description: string;
}) {
  const range = `must be from ${options.min} to ${options.max} (minutes)`;
  return z
    .number()
    .int()
    .min(options.min, range)
    .max(options.max, range)
    .default(options.default)
    .describe(options.description)
    .meta({ title: options.title });
}

/**
 * The `refreshMinutes` field of a price or forecast source: a {@link minutesField} titled
 * "Refresh every (minutes)", by default 15 to 1440 minutes, 60 when left out, with
 * "Minutes between regular refreshes." as its help; any of these can be given instead.
 * {@link schedulePriceRefresh} reads it.
 *
 * @example
 * const configSchema = z.object({ refreshMinutes: refreshMinutesField() });
 * const amber = z.object({ refreshMinutes: refreshMinutesField({ min: 1, max: 60, default: 5 }) });
 */
export function refreshMinutesField(
  options: { min?: number; max?: number; default?: number; description?: string } = {},
) {
  return minutesField({
    min: 15,
    max: 1440,
    default: 60,
    title: 'Refresh every (minutes)',
    description: 'Minutes between regular refreshes.',
    ...options,
  });
}

/**
 * The address of an outside service's API, defaulting to the real service; tests point it at
 * a fake that answers as the real one does, and an owner may point it at a proxy.
 *
 * @example
 * import { apiAddressField, z } from '@heliograph/plugins-sdk';
 * const configSchema = z.object({
 *   baseUrl: apiAddressField({ default: 'https://api.tibber.com', description: 'Address of the Tibber API.' }),
 * });
 */
export function apiAddressField(options: { default: string; description: string }) {
  return z.url().default(options.default).describe(options.description).meta({ title: 'API address' });
}

/**
 * A three-letter currency code (ISO 4217) with a default, refused in plain words ("a
 * three-letter currency code such as EUR or SEK"): the currency a price source publishes in.
 *
 * @example
 * import { currencyField, z } from '@heliograph/plugins-sdk';
 * const configSchema = z.object({
 *   currency: currencyField({ default: 'EUR', examples: 'EUR or SEK', description: 'Currency to ask prices in.' }),
 * });
 */
export function currencyField(options: { default: string; examples?: string; description: string }) {
  const refused = `a three-letter currency code${options.examples ? ` such as ${options.examples}` : ''}`;
  return z
    .string()
    .regex(/^[A-Z]{3}$/, refused)
    .default(options.default)
    .describe(options.description)
    .meta({ title: 'Currency' });
}
