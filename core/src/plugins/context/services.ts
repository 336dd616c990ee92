/*
 * What a plugin instance's context is built from: the core services it hands on to, the one
 * start of the instance it is for, and their injection tokens. Here, beside the builder that
 * injects them, so the builder never imports the container's list of tokens (which re-exports
 * these) and the two do not import each other.
 */
import type { Device, SiteInfo } from '@heliograph/plugins-sdk';
import type { Clock } from '../../clock.js';
import type { InjectionToken } from '../../container/di.js';
import type { Db } from '../../db.js';
import type { DbWriter } from '../../db-writer.js';
import type { PastEnergySeries, ResetPeriod } from '../../energy/kwh-totals.js';
import type { Logger } from '../../log.js';
import type { TopicRegistry } from '../../topics/registry.js';
import type { AuditLog } from '../../writes/audit.js';
import type { WriteService } from '../../writes/service.js';
import type { PluginQuotas } from '../instances/quotas.js';
import type { PluginGrants } from '../instances/grants.js';
import type { JobReporter, JobScheduler } from '../scheduling/scheduler.js';
import type { IntegrationServices } from './integration.js';
import type { SiteReaders } from './site.js';
import type { ForecastSink, HistorySink, PriceSink } from '../../topics/sinks.js';

/** The core services a context hands on to; each plugin gets them already bound to its id. */
export interface ContextServices {
  clock: Clock;
  db: Db;
  /** The one write path to the database file (db-writer.ts); `ctx.store` writes through it. */
  writer?: DbWriter;
  registry: TopicRegistry;
  writes: WriteService;
  /** The audit log: a plugin's refusals (its sandbox, its quotas) are kept there with its writes. */
  audit?: Pick<AuditLog, 'add'>;
  /** Bounds of every instance's store and publishes (plugins.json `quotas` overrides them per instance). */
  quotas?: Partial<PluginQuotas>;
  history?: HistorySink;
  forecast?: ForecastSink;
  prices?: PriceSink;
  site: SiteInfo;
  /** What `ctx.site` reads besides the registry: the price book, forecasts, history. */
  reads?: SiteReaders;
  integration?: IntegrationServices;
  /** Runs an instance's jobs; default: on timers of `clock`. The plugin harness runs them on demand. */
  jobs?: (signal: AbortSignal, reporter: JobReporter) => JobScheduler;
  /** Makes an instance's logger (named `plugin:<id>`); default: lines on stderr. */
  logger?: (name: string) => Logger;
  /** The kWh totals' reset period and zone: past readings' energy (a backfill's) is counted by them. Without it, none is. */
  /** The energy rules (reset period, zone) in force at `time`: past readings are counted by them. */
  energyReset?: (time: number) => { period: ResetPeriod; timeZone: string };
  /** The live kWh totals, given the energy series past readings add up to (EnergyTotals.addPast). */
  pastEnergy?: (series: PastEnergySeries) => void;
  /** Longest wait before `ctx.http` retries, in ms; default got's back-off. The plugin harness shortens it. */
  httpRetryDelayMs?: number;
}

/** One start of a plugin instance: what its context is built for. */
export interface PluginInstanceScope {
  id: string;
  /** The plugin's id (plugins.json `plugin`): the audit's `via` of the instance's writes. */
  plugin: string;
  devices: readonly Device[];
  /** The instance's quotas (plugins.json `quotas`), when they differ from the defaults. */
  quotas?: Partial<PluginQuotas>;
  /**
   * What the instance may do beyond its own devices (instances/grants.ts); absent in a
   * builder made by hand (a test's), which is then not checked.
   */
  grants?: PluginGrants;
  /** Aborts when this start is stopped. */
  abort: AbortController;
  reporter: JobReporter & {
    writeFailed(message: string): void;
    /** `ctx.status.error`: an error reported outside any job. */
    statusError(message: string): void;
    /** `ctx.status.ok`: the error reported with statusError is over. */
    statusOk(): void;
  };
}

/** The core services a plugin context hands on to. */
export const CONTEXT_SERVICES: InjectionToken<ContextServices> = Symbol('ContextServices');
/** One plugin instance (id, devices, abort, status reporter): registered in its child container. */
export const PLUGIN_INSTANCE: InjectionToken<PluginInstanceScope> = Symbol('PluginInstance');
