// Regenerates config/schema.json from the zod schema: `npm run config:schema`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configJsonSchema } from './json-schema.js';

const file = fileURLToPath(new URL('../../../../config/schema.json', import.meta.url));
writeFileSync(file, configJsonSchema());
console.log(`wrote ${file}`);
