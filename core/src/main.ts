#!/usr/bin/env node
/*
 * The `heliograph` command. Node's compile cache is switched on before anything else is
 * loaded: the service's modules are then read compiled from the cache at the next start
 * (start to first answer, npm run bench:memory). Where the cache cannot be written (a
 * read-only temporary directory) Node goes on without it. First of all, a Node older than
 * package.json's "engines" is refused in words (node-version.ts).
 */
import nodeModule from 'node:module';
// Kept tiny and free of newer syntax: it refuses an old Node in words before anything that
// could fail on one is loaded (cli/run.js and its imports come in by the dynamic import below).
import { refuseOldNode } from './node-version.js';

refuseOldNode();
// Under systemd the cache goes in the unit's CacheDirectory= (CACHE_DIRECTORY): the unit's
// PrivateTmp= gives every start an empty temporary directory, which made every start a cold
// one. Elsewhere Node's default, in os.tmpdir(); NODE_COMPILE_CACHE, when set, wins over both.
const cacheDir = process.env.CACHE_DIRECTORY?.split(':')[0];
// Looked up rather than imported by name: a Node without it still reaches the version check.
nodeModule.enableCompileCache?.(cacheDir ? `${cacheDir}/node-compile-cache` : undefined);
await import('./cli/run.js');
