#!/usr/bin/env node
// tsc emits the page's scripts into dist; this copies the rest of src (index.html, the
// style sheet) beside them, so dist is the complete set of files core serves.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const src = join(here, 'src');
const dist = join(here, 'dist');
mkdirSync(dist, { recursive: true });
for (const name of readdirSync(src)) {
  if (name.endsWith('.ts')) continue;
  copyFileSync(join(src, name), join(dist, name));
}
