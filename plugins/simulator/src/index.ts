/**
 * The simulator: the embedded default plugin. It simulates a site with as many inverters and
 * batteries as plugins.json assigns it, following the sun at the site's coordinates, plus a
 * demo forecast and demo prices, so a fresh install shows live data on every endpoint. Its
 * battery control behaves as a device with a lease: a forced command ends in the simulated
 * bank at its lease's end unless renewed, and every start begins in Normal.
 */
import {
  batteryControl,
  definePlugin,
  loadBatteryCommand,
  type BatteryControl,
  type Device,
  type Disposer,
  type PluginContext,
  type z,
} from '@heliograph/plugins-sdk';
import { bankLimits } from './control.js';
import { runBackfill, planBackfill } from './backfill.js';
import { configSchema, createSiteModel, isKnownTimeZone } from './config.js';
import { BATTERY_METRICS, INVERTER_METRICS, MAX_CHARGE_CURRENT, SETTING_NAMES } from './declarations.js';
import { demoForecast } from './forecast.js';
import { LiveSimulation } from './live.js';
import { type BackfillProgress, loadBackfill, loadSettings, loadState, saveSettings, STORE_KEYS } from './persisted.js';
import { demoPriceSlots, demoPriceSlotsBetween } from './prices.js';
import {
  initialState,
  OUTPUT_SOURCE_PRIORITIES,
  type InverterSettings,
  type OutputSourcePriority,
  type SiteModel,
} from './site.js';

const HOUR = 3_600_000;
/** How often the battery's state is saved, so a restart continues close to where it stopped. */
const SAVE_STATE_EVERY_MS = 10 * 60_000;

export default definePlugin({
  id: 'simulator',
  configSchema,
  async setup(ctx, config) {
    const inverters = ctx.devices.filter((d) => d.kind === 'inverter');
    const batteries = ctx.devices.filter((d) => d.kind === 'battery');
    const timeZone = siteTimeZone(ctx);
    const model = createSiteModel({
      config,
      latitude: ctx.site.latitude,
      longitude: ctx.site.longitude,
      timeZone,
      inverterCount: inverters.length,
      batteryCount: batteries.length,
    });
    const inverterIds = inverters.map((d) => d.id);
    const settings = await loadSettings(ctx.store, inverterIds);
    // The first start plans the backfill before the live simulation begins: the live battery
    // goes on from the charge (and temperatures) the backfill ends with, without a jump.
    const backfill = await prepareBackfill(ctx, { config, model, timeZone, settings, inverters });
    const state = (await loadState(ctx.store)) ?? backfill?.end ?? initialState(model, ctx.now(), config.initialSoc);
    const sim = new LiveSimulation(ctx, model, inverters, batteries, state, settings);

    // Battery control steers the whole bank, declared on the first inverter. The power and
    // target are kept across restarts, the mode never: the simulated bank starts in Normal.
    const limits = bankLimits(model);
    const controlled = inverters[0]?.id;
    const control =
      limits && controlled
        ? batteryControl({
            limits,
            boundedOnDevice: true,
            now: () => ctx.now(),
            store: ctx.store,
            initial: await loadBatteryCommand(ctx.store),
            read: () => Promise.resolve(sim.modeAt(ctx.now())),
            apply: ({ command, until }) => Promise.resolve(sim.applyControl(command, until)),
          })
        : null;
    if (control) {
      sim.control = control.current();
      sim.controlValues = () => control.values();
    }
    declareDevices(ctx, { config, inverters, batteries, settings, sim, control });

    let savedAt = ctx.now();
    /** Whether the first poll's reconcile of battery control is done. */
    let cleaned = false;
    ctx.scheduler.every({
      name: 'poll',
      intervalMs: config.pollIntervalMs,
      run: async ({ signal }) => {
        const now = ctx.now();
        sim.publish(sim.advanceTo(now));
        if (control && controlled && !cleaned) {
          await control.startClean({ site: ctx.site, device: controlled, signal });
          cleaned = true;
        }
        if (Math.abs(now - savedAt) >= SAVE_STATE_EVERY_MS) {
          savedAt = now;
          await ctx.store.set(STORE_KEYS.state, sim.state);
        }
      },
    });
    // backfill_days 0 pauses a stored plan; any other value continues it as planned.
    if (backfill && !backfill.done && config.backfill_days > 0)
      scheduleBackfill(ctx, { model, inverters, batteries, settings, backfill });
    await scheduleDemoFeeds(ctx, { config, model, timeZone });

    // A forced command still in force is ended through the write path (audited) at the stop.
    return async () => {
      if (!control || !controlled) return;
      await control
        .stopClean({ site: ctx.site, device: controlled })
        .catch((err: unknown) => ctx.log.warn('could not set battery control to Normal at the stop', { err }));
    };
  },
});

type Ctx = PluginContext;
type Config = z.output<typeof configSchema>;

/** The site's zone, or UTC (with a warning) when the zone is not one the simulator knows. */
function siteTimeZone(ctx: Ctx): string {
  if (isKnownTimeZone(ctx.site.timeZone)) return ctx.site.timeZone;
  ctx.log.warn(
    `site time zone "${ctx.site.timeZone}" is unknown; simulating household hours and price days in UTC. Set site.timeZone to an IANA name such as Europe/Berlin.`,
  );
  return 'UTC';
}

/** Each inverter with its readings and settings (battery control on the first), each battery with its readings. */
function declareDevices(
  ctx: Ctx,
  {
    config,
    inverters,
    batteries,
    settings,
    sim,
    control,
  }: {
    config: Config;
    inverters: Device[];
    batteries: Device[];
    settings: InverterSettings[];
    sim: LiveSimulation;
    control: BatteryControl | null;
  },
): void {
  const inverterIds = inverters.map((d) => d.id);
  inverters.forEach((device, i) => {
    const withControl = i === 0 && control;
    ctx.topics.declare({
      device: device.id,
      pollIntervalMs: config.pollIntervalMs,
      identity: sim.info[i]!.identity,
      metrics: withControl ? [...INVERTER_METRICS, ...control.metrics] : INVERTER_METRICS,
      settings: [
        ...(withControl ? control.settings : []),
        {
          name: SETTING_NAMES.outputSourcePriority,
          displayName: 'Output source priority',
          options: OUTPUT_SOURCE_PRIORITIES,
          initial: settings[i]!.outputSourcePriority,
          write: async ({ value }) => {
            sim.applySetting(i, { outputSourcePriority: value as OutputSourcePriority });
            await saveSettings(ctx.store, inverterIds, settings);
          },
        },
        {
          name: SETTING_NAMES.maxChargeCurrent,
          displayName: 'Max charge current',
          unit: 'A',
          ...MAX_CHARGE_CURRENT,
          initial: settings[i]!.maxChargeCurrentA,
          write: async ({ value }) => {
            sim.applySetting(i, { maxChargeCurrentA: value });
            await saveSettings(ctx.store, inverterIds, settings);
          },
        },
      ],
    });
  });
  for (const device of batteries) {
    ctx.topics.declare({ device: device.id, pollIntervalMs: config.pollIntervalMs, metrics: BATTERY_METRICS });
  }
}

/**
 * The backfill's plan and progress: the stored one, or at the first start with
 * `backfill_days` above 0 a new plan (the model's first pass through the span, about a second
 * of work that yields to the event loop). Undefined when there is none to run or show.
 */
async function prepareBackfill(
  ctx: Ctx,
  {
    config,
    model,
    timeZone,
    settings,
    inverters,
  }: { config: Config; model: SiteModel; timeZone: string; settings: InverterSettings[]; inverters: Device[] },
): Promise<BackfillProgress | undefined> {
  const stored = await loadBackfill(ctx.store);
  if (stored || config.backfill_days === 0 || inverters.length === 0) return stored;
  const planned = await planBackfill({
    model,
    startedAt: ctx.now(),
    days: config.backfill_days,
    initialSoc: config.initialSoc,
    timeZone,
    settings,
    signal: ctx.signal,
  });
  if (planned) await ctx.store.set(STORE_KEYS.backfill, planned);
  return planned;
}

/**
 * The backfill runs as a scheduled job rather than a promise left running from setup:
 * setup returns at once, a failed chunk shows in the plugin's status and is retried with
 * the scheduler's back-off, it never overlaps itself, and tests can run it to the end.
 * The job unschedules itself once done; the stored progress keeps it from running again.
 * A restart during the backfill continues the stored plan even if `backfill_days` changed.
 */
function scheduleBackfill(
  ctx: Ctx,
  {
    model,
    inverters,
    batteries,
    settings,
    backfill,
  }: {
    model: SiteModel;
    inverters: Device[];
    batteries: Device[];
    settings: InverterSettings[];
    backfill: BackfillProgress;
  },
): void {
  // The settings the plan was made with, for the whole span: a day recorded from a kept
  // state must follow the same steps as the first pass, or it would not meet the next day.
  const planned = settings.map((s) => ({ ...s }));
  let progress = backfill;
  let finished = false;
  const stopBackfill: Disposer = ctx.scheduler.every({
    name: 'backfill',
    intervalMs: HOUR,
    run: async ({ signal }) => {
      if (finished) return;
      progress = (await loadBackfill(ctx.store)) ?? progress;
      finished = await runBackfill({ ctx, model, inverters, batteries, settings: planned, progress, signal });
      if (finished) {
        ctx.log.info('backfill complete');
        stopBackfill();
      }
    },
  });
}

/** The demo forecast and demo prices, hourly, when the config asks for them. */
async function scheduleDemoFeeds(
  ctx: Ctx,
  { config, model, timeZone }: { config: Config; model: SiteModel; timeZone: string },
): Promise<void> {
  if (config.demoForecast) {
    ctx.scheduler.every({
      name: 'forecast',
      intervalMs: HOUR,
      run: () => {
        const now = ctx.now();
        ctx.forecast.publish({
          series: demoForecast(model, now, ctx.site.temperatureUnit),
          fetchedAt: now,
          demo: true,
        });
      },
    });
  }

  if (config.demoPrices) {
    ctx.prices.declare({ provider: 'Simulator', currency: 'EUR', scheduleType: 'pricing', demo: true });
    // The first publish of each start also covers the backfilled days, so their cost can be
    // shown (the core keeps past prices); the hourly ones after it, today and tomorrow. The
    // demo market keeps the zone it first ran in: an owner who sets the site's zone later
    // changes no price already published (so no past day's cost).
    let pastFrom = (await loadBackfill(ctx.store))?.from;
    const kept = await ctx.store.get(STORE_KEYS.priceZone);
    const priceZone = typeof kept === 'string' && isKnownTimeZone(kept) ? kept : timeZone;
    if (kept !== priceZone) await ctx.store.set(STORE_KEYS.priceZone, priceZone);
    ctx.scheduler.every({
      name: 'prices',
      intervalMs: HOUR,
      run: () => {
        const now = ctx.now();
        const past = pastFrom === undefined ? [] : demoPriceSlotsBetween(model, priceZone, pastFrom, now);
        pastFrom = undefined;
        const ahead = demoPriceSlots(model, priceZone, now);
        ctx.prices.publish({ import: [...past.filter((s) => s.start < ahead[0]!.start), ...ahead] });
      },
    });
  }
}
