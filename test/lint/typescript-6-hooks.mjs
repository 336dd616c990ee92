// Imported first by the scripts that run dependency-cruiser: it reads TypeScript sources
// through the compiler API, which TypeScript 7 (hoisted to the root, what builds the project)
// does not have yet. Every `typescript` request, by require() or import, is pointed at the
// TypeScript 6 of this workspace (as typescript-6.cjs does for ESLint). Remove once
// dependency-cruiser supports TypeScript 7.
import { createRequire, registerHooks } from 'node:module';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const typescript6 = dirname(require.resolve('typescript/package.json'));

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === 'typescript' || specifier.startsWith('typescript/')) {
      const target = require.resolve(specifier.replace(/^typescript/, typescript6));
      return {
        url: pathToFileURL(target).href,
        format: target.endsWith('.json') ? 'json' : 'commonjs',
        shortCircuit: true,
      };
    }
    return nextResolve(specifier, context);
  },
});
