/*
 * Injection tokens for what is not a class (interfaces, options, values opened before the
 * container resolves anything). Classes are their own tokens.
 */
import type { SiteInfo } from '@heliograph/plugins-sdk';
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import type { Db } from '../db.js';
import type { DbWriter } from '../db-writer.js';
import type { HistoryStore } from '../history/store.js';
import type { ContextBuilder } from '../plugins/context/context.js';
import type { PluginInstanceScope } from '../plugins/context/services.js';
import type { InjectionToken } from './di.js';

/** The time everything reads; tests register a ManualClock instead of the system clock. */
export const CLOCK: InjectionToken<Clock> = Symbol('Clock');
/** The shared SQLite connection, opened (and migrated) before anything is resolved. */
export const DB: InjectionToken<Db> = Symbol('Db');
/** The one write path to the database file (db-writer.ts): every writer takes its turn here. */
export const DB_WRITER: InjectionToken<DbWriter> = Symbol('DbWriter');
/** The history store, opened on a connection of its own before anything is resolved. */
export const HISTORY: InjectionToken<HistoryStore> = Symbol('HistoryStore');
/** The service's data directory (`--data`); integrations keep files of their own under it. */
export const DATA_DIR: InjectionToken<string> = Symbol('DataDir');
/** The site's stable id (system/site-id.ts), loaded by the composition root. */
export const SITE_ID: InjectionToken<number> = Symbol('SiteId');
/** The validated user config. */
export const CONFIG: InjectionToken<Config> = Symbol('Config');
/** Where the site is, as plugins see it (`ctx.site`). */
export const SITE: InjectionToken<SiteInfo> = Symbol('SiteInfo');
// Declared beside the context builder that injects them (no import cycle with it).
export { CONTEXT_SERVICES, HTTP_CLIENT, PLUGIN_INSTANCE } from '../plugins/context/services.js';
/** Builds a plugin instance's context, each from a child container of its own. */
export const PLUGIN_CONTEXTS: InjectionToken<(instance: PluginInstanceScope) => ContextBuilder> =
  Symbol('PluginContexts');
