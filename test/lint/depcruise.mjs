// Runs dependency-cruiser's command (`npm run check:deps`) with TypeScript 6 (see typescript-6-hooks.mjs).
import './typescript-6-hooks.mjs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
// The package exports no path to its command; it sits beside the package's `.bin` link.
const bin = require.resolve('../../node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
await import(pathToFileURL(bin).href);
