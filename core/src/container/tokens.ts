/*
 * Injection tokens for what is not a class (interfaces, options, values opened before the
 * container resolves anything). Classes are their own tokens. These name the lowest layer's
 * values, so any service may inject them; a token naming a higher layer's interface lives
 * beside that interface (plugins/context/services.ts: CONTEXT_SERVICES, PLUGIN_INSTANCE) or, when
 * only the composition uses it, in container/service-tokens.ts.
 */
import type { Got } from 'got';
import type { SiteInfo } from '@heliograph/plugins-sdk';
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import type { Db } from '../db.js';
import type { DbWriter } from '../db-writer.js';
import type { InjectionToken } from './di.js';

/** The time everything reads; tests register a ManualClock instead of the system clock. */
export const CLOCK: InjectionToken<Clock> = Symbol('Clock');
/** The shared SQLite connection, opened (and migrated) before anything is resolved. */
export const DB: InjectionToken<Db> = Symbol('Db');
/** The one write path to the database file (db-writer.ts): every writer takes its turn here. */
export const DB_WRITER: InjectionToken<DbWriter> = Symbol('DbWriter');
/** The service's data directory (`--data`); integrations keep files of their own under it. */
export const DATA_DIR: InjectionToken<string> = Symbol('DataDir');
/** The site's stable id (system/site-id.ts), loaded by the composition root. */
export const SITE_ID: InjectionToken<number> = Symbol('SiteId');
/** The validated user config. */
export const CONFIG: InjectionToken<Config> = Symbol('Config');
/** Where the site is, as plugins see it (`ctx.site`). */
export const SITE: InjectionToken<SiteInfo> = Symbol('SiteInfo');
/** Makes a plugin's `ctx.http` for its abort signal; tests can register a client of their own. */
export const HTTP_CLIENT: InjectionToken<(signal: AbortSignal) => Got> = Symbol('HttpClientFactory');
/** The user config file (`<dataDir>/config.json` unless given): PUT /api/v1/config writes it. */
export const CONFIG_FILE: InjectionToken<string> = Symbol('ConfigFile');
/** plugins.json, where the instances are kept (the API's changes to them are saved there). */
export const PLUGINS_FILE: InjectionToken<string> = Symbol('PluginsFile');
/** Unix ms the service started (uptime). */
export const STARTED_AT: InjectionToken<number> = Symbol('StartedAt');
