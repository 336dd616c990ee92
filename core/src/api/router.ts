/*
 * @koa/router's CommonJS build: its ES build imports Node's `http` as an ES module, which
 * loads Node's bundled fetch library (undici) into every process that routes a request (see
 * node-http.ts). The routes import Router from here; `import type` from '@koa/router' is fine.
 */
import type KoaRouter from '@koa/router';
import type { DefaultContext, DefaultState } from 'koa';
import { createRequire } from 'node:module';

const Router = createRequire(import.meta.url)('@koa/router') as typeof KoaRouter;
type Router<StateT = DefaultState, ContextT = DefaultContext> = KoaRouter<StateT, ContextT>;

export default Router;
