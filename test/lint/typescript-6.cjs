// Preloaded by `npm run lint` (node --require). Type-aware lint rules need the TypeScript
// compiler API, which TypeScript 7 (what builds the project, hoisted to the root
// node_modules) does not have; this workspace carries TypeScript 6 for them. npm hoists some
// of typescript-eslint's helpers (ts-api-utils) to the root, where `require('typescript')`
// would find 7, so every `typescript` request in the lint process is pointed at 6 here.
// Remove once typescript-eslint supports TypeScript 7.
'use strict';
const Module = require('node:module');
const typescript6 = require.resolve('typescript', { paths: [__dirname] });
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, request === 'typescript' ? typescript6 : request, ...rest);
};
