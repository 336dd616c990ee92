/**
 * The Heliograph plugin SDK, version 1 (1.2).
 *
 * A plugin is an npm package with the keyword `heliograph-plugin` and a `heliograph` field in
 * its package.json (`{ "id": "my-inverter", "kind": "inverter", "sdk": "^1" }`). Its default
 * export is the value returned by {@link definePlugin}. The core validates the instance's
 * config against `configSchema`, then calls `setup(ctx, config)` with a {@link PluginContext}
 * built for that instance alone.
 *
 * Every entry point takes one object argument, so fields can be added within SDK v1 without
 * breaking plugins. Every registration returns a {@link Disposer}; the host undoes all of
 * them when the plugin stops or fails to start, so a plugin rarely needs to call one itself.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { DEVICE_KIND_PATTERN, RESERVED_DEVICE_KINDS, type Cleanup, type PluginContext } from './context.js';
export {
  unavailableIntegration,
  type IntegrationApi,
  type RecordedReading,
  type SubscribeOptions,
  type TopicDefinition,
  type TopicDiscovery,
  type TopicUpdate,
  type UpgradeHandler,
  type WriteResult,
} from './integration.js';
export {
  unavailableSite,
  type SiteApi,
  type SiteForecastQuery,
  type SiteHistoryQuery,
  type SitePoint,
  type SitePrices,
  type SitePriceSlot,
  type SitePriceStatus,
  type SiteSubscribeOptions,
  type SettingsTogether,
  type SiteWrite,
  type SiteWriteValue,
  type TopicFilter,
} from './site.js';

export { z };
export { apiAddressField, currencyField, secret, isSecretSchema, minutesField, refreshMinutesField } from './config.js';
export { schedulePriceRefresh, type PriceRefreshOptions } from './price-refresh.js';
export { fetchIntervalField, plantLocation, pvArraySchema, pvPlantFields, type PvArray } from './pv-arrays.js';
export {
  localDays,
  parseAnswer,
  parseJson,
  requestFailure,
  type LocalDays,
  type ParseAnswerOptions,
  type ParseJsonOptions,
  type RequestFailureOptions,
} from './providers.js';
export { assertJsonDepth, JsonTooDeepError, MAX_JSON_DEPTH } from './json-depth.js';
export { ConfigError, DeviceRefusedError, NoAnswerError } from './errors.js';
export { formatZodError, formatZodIssue, formatZodPath, type ZodErrorFormatOptions } from './zod-errors.js';
export {
  batteryMetrics,
  bmsPackMetrics,
  cellTemperatureMetrics,
  inverterMetrics,
  pvStringMetrics,
  temperatureMetric,
} from './vocabulary.js';
export {
  batteryCommandSchema,
  batteryConfigSchema,
  batteryControl,
  batteryModeLabel,
  batteryModeOf,
  commandProblem,
  loadBatteryCommand,
  BATTERY_COMMAND_KEY,
  BATTERY_LEASE_MS,
  BATTERY_CONTROL_TOPICS,
  BATTERY_MODES,
  type BatteryCommand,
  type BatteryConfig,
  type BatteryControl,
  type BatteryControlOptions,
  type BatteryLimits,
  type BatteryMode,
} from './battery-control.js';
export {
  polledBatteryControl,
  reachedTarget,
  serialTasks,
  type PolledBatteryControl,
  type PolledBatteryControlOptions,
} from './polled-battery-control.js';
export {
  deviceFromId,
  DEVICE_KIND_PATTERN,
  RESERVED_DEVICE_KINDS,
  type Device,
  type DeviceKind,
  type DeviceIdentity,
  type DiscoveryClasses,
  type DeviceDeclaration,
  type Cleanup,
  type Disposer,
  type ForecastApi,
  type ForecastPoints,
  type ForecastRun,
  type PlanSeries,
  type ForecastTopic,
  type JobOptions,
  type MetricDeclaration,
  type MetricValue,
  type OptionsSettingDeclaration,
  type RangeSettingDeclaration,
  type SettingOption,
  type SettingUpdate,
  type StatusApi,
  type SwitchSettingDeclaration,
  type PluginContext,
  type PluginLogger,
  type PluginStore,
  type PriceProviderDeclaration,
  type PriceSlot,
  type PricesApi,
  type ProgressReport,
  type SchedulerApi,
  type SettingDeclaration,
  type SiteInfo,
  type TopicsApi,
} from './context.js';

/**
 * A plugin definition: the default export of a plugin package. Write it with
 * {@link definePlugin}, which infers the type of `config` from `configSchema`.
 *
 * @typeParam S - the zod schema of the instance config.
 *
 * @example
 * const definition: PluginDefinition = { id: 'noop', configSchema: z.object({}), setup() {} };
 */
export interface PluginDefinition<S extends z.ZodType = z.ZodType> {
  /** Must equal the `id` in the package.json `heliograph` field. */
  id: string;
  /** Validates the instance's `config` from plugins.json; also draws the settings form. */
  configSchema: S;
  /**
   * Validates each device's own config (`{ "id": "inverter_1", "config": { "unitId": 2 } }`
   * in plugins.json); the parsed result is the device's `config`. Without it, a device
   * entry must not carry config.
   *
   * @example
   * deviceConfigSchema: z.object({ unitId: z.number().int().min(1).max(247).default(1) }),
   */
  deviceConfigSchema?: z.ZodType<Record<string, unknown>>;
  /**
   * Starts the plugin: declare devices, schedule jobs. Registrations made here are undone
   * when the plugin stops. May return a cleanup function for anything else it started; an
   * async one is awaited before the registrations are undone (see {@link Cleanup}).
   */
  setup(ctx: PluginContext, config: z.output<S>): void | Cleanup | Promise<void | Cleanup>;
}

/**
 * Defines a plugin. The identity function, there for type inference of `config`.
 *
 * @example
 * import { definePlugin, z } from '@heliograph/plugins-sdk';
 * export default definePlugin({
 *   id: 'my-battery',
 *   configSchema: z.object({ host: z.string(), port: z.number().int().default(502) }),
 *   setup(ctx, config) {
 *     ctx.log.info(`talking to ${config.host}:${config.port}`);
 *   },
 * });
 */
export function definePlugin<S extends z.ZodType>(definition: PluginDefinition<S>): PluginDefinition<S> {
  return definition;
}

/**
 * What kind of thing a plugin talks to. `inverter` and `battery` plugins drive devices,
 * `forecast` and `prices` plugins feed the ForecastStore and PriceBook, `integration`
 * plugins do anything else.
 *
 * @example
 * "heliograph": { "id": "deye", "kind": "inverter", "sdk": "^1" }
 */
export type PluginKind = 'inverter' | 'battery' | 'forecast' | 'prices' | 'integration';
/**
 * The `grants` of a plugin's manifest: what it asks to do beyond its own devices. Each is
 * refused (`GRANT_MISSING`) until the owner approves it for the instance.
 *
 * @example
 * { "writes": ["battery_1/battery_control_*", "planner_1/mode"], "prices": true, "hosts": ["api.example.com", "*.example.org"] }
 */
export const manifestGrantsSchema = z.strictObject({
  /**
   * Settings of other devices it may write (`ctx.site.write`, `ctx.integration.write`), as
   * topic globs: `*` any run of characters including `/`, `?` one character. Its own
   * devices' settings need no grant.
   */
  writes: z.array(z.string().min(1).max(256)).max(64).optional(),
  /** It publishes grid prices (`ctx.prices.publish`). */
  prices: z.boolean().optional(),
  /** It publishes forecast series (`ctx.forecast.publish` with `series`; a plan alone needs none). */
  forecast: z.boolean().optional(),
  /**
   * Hosts `ctx.http` may reach: a name or address (`api.example.com`, `127.0.0.1`), a
   * sub-domain wildcard (`*.example.com`), or `*` for any (a service whose address the owner
   * configures).
   */
  hosts: z
    .array(
      z
        .string()
        .regex(/^(\*|(\*\.)?[A-Za-z0-9._:[\]-]+)$/, 'a host name, "*.example.com" or "*"')
        .max(253),
    )
    .max(64)
    .optional(),
});

/**
 * A manifest's or an approval's grants; see {@link manifestGrantsSchema}.
 *
 * @example
 * const grants: PluginGrants = { writes: ['battery_1/battery_control_*'], forecast: true };
 */
export type PluginGrants = z.infer<typeof manifestGrantsSchema>;

/**
 * The `heliograph` field of a plugin's package.json, checked before the module is imported.
 *
 * @example
 * { "id": "awattar", "kind": "prices", "sdk": "^1" }
 */
export const manifestSchema = z.object({
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes')
    // The audit's `via` is `rest`, `ws` or the id of the plugin that wrote.
    .refine((id) => id !== 'rest' && id !== 'ws', 'is reserved: the audit log names REST and WebSocket writes so'),
  kind: z.enum(['inverter', 'battery', 'forecast', 'prices', 'integration']),
  sdk: z.string().regex(/^\^?1(\.\d+){0,2}$/, 'an SDK v1 range such as "^1"'),
  /** Name shown in the settings page ("Open-Meteo"); default: the id. */
  name: z.string().min(1).optional(),
  /**
   * Which devices an instance may drive, for the settings page's device picker. Default:
   * one or more devices of the plugin's kind for `inverter` and `battery` plugins, none for
   * the others.
   */
  devices: z
    .object({
      /**
       * `inverter`, `battery`, or a kind of the plugin's own (`planner`): its devices are then
       * `planner_1`... in plugins.json, and their topics show in the API like any device's.
       */
      kinds: z
        .array(
          z
            .string()
            .regex(DEVICE_KIND_PATTERN, 'a device kind in lower snake case, such as "inverter" or "planner"')
            .refine((kind) => !RESERVED_DEVICE_KINDS.includes(kind), "is reserved for the API's own topics"),
        )
        .min(1),
      min: z.number().int().min(0).default(0),
      max: z.number().int().min(1).nullable().default(null),
    })
    .optional(),
  /** A device driver's emulator module (`dist/src/emulator/main.js`), run by `heliograph emulate <id>`. */
  emulator: z.string().min(1).optional(),
  /**
   * The name `heliograph emulate <name>` takes for the emulator, when not the plugin's id
   * (`ocpp-charger`: the ocpp plugin's emulator is a charge point, not the central system).
   */
  emulatorName: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes')
    .optional(),
  /**
   * The plugin loads native addons (serialport's binding): its sandboxed process is then
   * allowed them, and the serial devices its instance's config names (`"/dev/ttyUSB0"`).
   * An addon's native code is beyond the sandbox's reach, so only a driver that needs one
   * says so; the settings page shows it. Since SDK 1.3.
   *
   * @example
   * "heliograph": { "id": "acme-bms", "kind": "battery", "sdk": "^1.3", "nativeAddons": true }
   */
  nativeAddons: z.boolean().optional(),
  /**
   * What the plugin asks to do beyond its own devices; the owner approves it per instance
   * (plugins.json `grants`, `PUT /api/v1/plugins/:id/grants`), and a call outside what was
   * approved is refused with `code: 'GRANT_MISSING'`, logged and audited. A bundled plugin's
   * grants are approved by default. Since SDK 1.3.
   *
   * @example
   * "heliograph": { "id": "acme-planner", "kind": "integration", "sdk": "^1.3",
   *   "grants": { "writes": ["battery_1/battery_control_*"], "hosts": ["api.acme.example"] } }
   */
  grants: manifestGrantsSchema.optional(),
});

/**
 * The parsed `heliograph` field of a plugin's package.json; see {@link manifestSchema}.
 *
 * @example
 * const manifest: PluginManifest = manifestSchema.parse(packageJson.heliograph); // { id: 'awattar', kind: 'prices', sdk: '^1' }
 */
export type PluginManifest = z.infer<typeof manifestSchema>;
