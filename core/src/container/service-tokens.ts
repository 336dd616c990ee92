/*
 * Tokens only the composition uses, naming services of the layers above the lowest one
 * (container/tokens.ts holds those any service may inject).
 */
import type { HistoryStore } from '../history/store.js';
import type { ContextBuilder, PluginInstanceScope } from '../plugins/context.js';
import type { InjectionToken } from './di.js';

/** The history store, opened on a connection of its own before anything is resolved. */
export const HISTORY: InjectionToken<HistoryStore> = Symbol('HistoryStore');
/** Builds a plugin instance's context, each from a child container of its own. */
export const PLUGIN_CONTEXTS: InjectionToken<(instance: PluginInstanceScope) => ContextBuilder> =
  Symbol('PluginContexts');
