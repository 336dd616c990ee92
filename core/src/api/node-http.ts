/*
 * Node's `http` module, loaded with require(). An ES `import` of it makes Node build the
 * module's ES facade, which reads every export: the lazy `WebSocket`, `CloseEvent` and
 * `MessageEvent` getters then load Node's bundled fetch library (undici) before the service
 * listens: about 60 ms of CPU on one core (README, "Performance"). Koa 3 still loads it at the
 * first JSON answer (its `instanceof Response` test of every body that is not a string, a
 * Buffer or a stream). Types are imported from 'node:http' as usual (`import type` is
 * erased). router.ts does the same for @koa/router, whose ES build imports `http`.
 */
import { createRequire } from 'node:module';

const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');

export const { createServer, STATUS_CODES } = http;
