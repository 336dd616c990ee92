import { z } from 'zod';
import { configSchema } from './schema.js';

/** config/schema.json: the JSON Schema of the config files, generated from the zod schema. */
export function configJsonSchema(): string {
  const schema = z.toJSONSchema(configSchema.partial(), { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  // Editors validate config files against it, and the files carry a "$schema" key.
  (schema.properties as Record<string, unknown>)['$schema'] = { type: 'string' };
  return JSON.stringify({ title: 'Heliograph core settings', ...schema }, null, 2) + '\n';
}
