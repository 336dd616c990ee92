/*
 * Tokens only the composition uses, naming services of the layers above the lowest one
 * (container/tokens.ts holds those any service may inject).
 */
import type { PluginStatus } from '../contract/types.js';
import type { OpenedHistory } from '../history/open.js';
import type { HistoryStore } from '../history/store.js';
import type { ContextBuilder, PluginInstanceScope } from '../plugins/context/context.js';
import type { DiscoveredPlugin } from '../plugins/discovery/discovery.js';
import type { PluginInstanceConfig } from '../plugins/instances/instances.js';
import type { InjectionToken } from './di.js';

/** The history store, opened on a connection of its own before anything is resolved. */
export const HISTORY: InjectionToken<HistoryStore> = Symbol('HistoryStore');
/** History as it opened: its store, or why the service runs without it. */
export const OPENED_HISTORY: InjectionToken<OpenedHistory> = Symbol('OpenedHistory');
/** Where a damaged database file was set aside at this start, if it was. */
export const CORE_DB_OPENED: InjectionToken<{ setAsideAs?: string }> = Symbol('CoreDbOpened');
/** The `history` row of GET /api/v1/plugins and the scrape: history's state and storage trouble. */
export const HISTORY_STATUS: InjectionToken<() => PluginStatus> = Symbol('HistoryStatus');
/** Plugins found at start (bundled, node_modules, --plugin-dir). */
export const DISCOVERED_PLUGINS: InjectionToken<Map<string, DiscoveredPlugin>> = Symbol('DiscoveredPlugins');
/** The instances of plugins.json as loaded at start. */
export const PLUGIN_INSTANCES: InjectionToken<PluginInstanceConfig[]> = Symbol('PluginInstances');
/** Builds a plugin instance's context, each from a child container of its own. */
export const PLUGIN_CONTEXTS: InjectionToken<(instance: PluginInstanceScope) => ContextBuilder> =
  Symbol('PluginContexts');
