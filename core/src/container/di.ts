/*
 * tsyringe, with the Reflect metadata API it needs loaded first. Every module that uses a
 * decorator or the container imports them from here, never from 'tsyringe' directly: ES
 * modules run in import order, so the polyfill is in place whichever module loads first.
 * @abraham/reflection implements only the metadata functions (reflect-metadata polyfills
 * all of Reflect), which keeps the start's memory small.
 */
import '@abraham/reflection';

export {
  container,
  delay,
  inject,
  injectable,
  instanceCachingFactory,
  Lifecycle,
  type DependencyContainer,
  type InjectionToken,
} from 'tsyringe';
