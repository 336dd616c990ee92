#!/usr/bin/env node
/*
 * The `heliograph` command. Node's compile cache is switched on before anything else is
 * loaded: the service's modules are then read compiled from the cache at the next start
 * (start to first answer, npm run bench:memory). Where the cache cannot be written (a
 * read-only temporary directory) Node goes on without it.
 */
import nodeModule from 'node:module';

// Looked up rather than imported by name: a Node without it still reaches the version check.
nodeModule.enableCompileCache?.();
await import('./cli/run.js');
