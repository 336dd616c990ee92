/**
 * The SunSpec driver: any SunSpec inverter over Modbus (TCP, or RTU on a serial port or an
 * RS485-over-TCP gateway). Finds the device's model chain, reads its identity from model 1
 * and, every poll, the inverter (101-103 / 111-113), its MPPT inputs (160), a meter
 * (201-204) and a battery (124 / 802) where the device has them. Where model 124 offers
 * storage controls it declares battery control (battery-control.ts); otherwise read-only.
 */
import {
  definePlugin,
  DeviceRefusedError,
  loadBatteryCommand,
  z,
  type BatteryConfig,
  type Disposer,
  type PluginContext,
  type PolledBatteryControl,
} from '@heliograph/plugins-sdk';
import {
  controlContext,
  inverterConfigFields,
  openInverterUnit,
  stopControlled,
  unitIdDeviceConfigSchema,
} from '@heliograph/plugins-sdk/connections';
import { storageLimits, sunspecBatteryControl } from './battery-control.js';
import { discoverChain, type ReadTarget } from './chain.js';
import { round, type ModelData } from './points.js';
import { layoutOf, readLayout, type Layout } from './layout.js';
import { batteryDeclarations, inverterDeclarations } from './metrics.js';
import {
  batteryValues,
  identityOf,
  inverterValues,
  meterValues,
  mpptCount,
  mpptValues,
  type Values,
} from './models.js';

/**
 * plugins.json `config` of a sunspec instance; the inverter entry may give its Modbus `unitId`
 * (default 1; SMA answers SunSpec on 126).
 *
 * @example
 * { "connection": { "type": "tcp", "host": "192.168.1.50", "port": 502 }, "pollIntervalMs": 5000 }
 */
const configSchema = z.strictObject({
  ...inverterConfigFields,
  meterSign: z
    .enum(['auto', 'import-positive', 'export-positive'])
    .default('auto')
    .describe(
      "The grid meter's sign convention: SunSpec counts import positive, SolarEdge meters count export positive. auto: export-positive when the device names SolarEdge as its manufacturer.",
    )
    .meta({ title: 'Meter sign' }),
});

/** Manufacturers whose SunSpec meters count export as positive power. */
const EXPORT_POSITIVE_MANUFACTURERS = /solaredge/i;

export default definePlugin({
  id: 'sunspec',
  configSchema,
  deviceConfigSchema: unitIdDeviceConfigSchema,
  setup(ctx, config) {
    const unit = openInverterUnit(ctx, config, { plugin: 'sunspec' });
    const { inverter, battery, unitId, modbus, timeoutMs } = unit;
    const where = `unit ${unitId} at ${modbus.link.description}`;
    const { pollIntervalMs } = config;

    /** Battery control, once discovery found model 124 with StorCtl_Mod. */
    let storage: PolledBatteryControl | undefined;
    const declaration = inverterDeclaration(ctx, inverter.id, pollIntervalMs);
    const declareInverter = (strings: number) => declaration.declare(strings, storage);
    declareInverter(0);
    if (battery) ctx.topics.declare({ device: battery.id, pollIntervalMs, metrics: batteryDeclarations });

    /** Finds the chain, declares the MPPT inputs it reports and identifies the device. */
    const discover = async (target: ReadTarget): Promise<Layout> => {
      const chain = await discoverChain(target);
      if (!chain) throw new Error(`${where}: ${NO_MARKER}`);
      const layout = layoutOf(chain);
      ctx.log.info(`${where}: SunSpec models ${chain.models.map((m) => m.id).join(', ')} from ${chain.base}`);
      const {
        common,
        mppt,
        storage: controls,
        battery: bank,
      } = await readLayout(target, layout, ['common', 'mppt', 'storage', 'battery']);
      const strings = mppt ? mpptCount(mppt) : 0;
      const hadControl = storage !== undefined;
      if (!storage && layout.storage && controls && controls.u16(3) !== null) {
        const at = { target: { modbus, unitId, timeoutMs }, storage: layout.storage, device: inverter.id };
        storage = await storageControl(ctx, { at, battery: config.battery, controls, bank });
      }
      if (strings !== declaration.strings || hadControl !== (storage !== undefined)) declareInverter(strings);
      const identity = common ? identityOf(common) : undefined;
      if (identity) ctx.topics.identify({ device: inverter.id, identity });
      exportPositive = countsExportPositive(config.meterSign, identity?.manufacturer);
      const storageModules = mppt ? 'storage_power' in mpptValues(mppt) : false;
      if (battery && !layout.storage && !layout.battery && !storageModules) {
        const reason = `${where} reports no battery (SunSpec model 124 or 802)`;
        ctx.log.warn(`${battery.id}: ${reason}`);
        ctx.topics.markUnavailable({ device: battery.id, reason });
      }
      return layout;
    };

    let layout: Layout | undefined;
    /** Whether the meter counts export as positive (SolarEdge), so its power is turned round. */
    let exportPositive = false;
    const poll = async (signal: AbortSignal) => {
      const target = { modbus, unitId, signal };
      try {
        layout ??= await discover(target);
        const read = await readLayout(target, layout, ['inverter', 'mppt', 'meter', 'storage', 'battery']);
        const { values, bank } = pollValues(read, exportPositive);
        if (storage) {
          Object.assign(values, storage.control.values(), { battery_state_of_charge: bank?.state_of_charge ?? null });
        }
        ctx.topics.publish({ device: inverter.id, values });
        if (battery && bank) ctx.topics.publish({ device: battery.id, values: bank });
        const soc = bank?.state_of_charge;
        await storage?.afterPoll({ soc: typeof soc === 'number' ? soc : null, signal });
      } catch (err) {
        // A refused read: the chain may have changed (a firmware update); find it again.
        if (err instanceof DeviceRefusedError) layout = undefined;
        throw err;
      }
    };
    unit.startPolling(poll);

    // Normal is written while the connection is still open; a failure is in the audit and here.
    return () => stopControlled(ctx, inverter, storage, unit.dispose);
  },
});

/**
 * Battery control through model 124 (`controls` as discovery read it), or undefined when
 * neither the config nor model 802 (`bank`) gives the battery's capacity.
 */
async function storageControl(
  ctx: PluginContext,
  args: {
    /** Where model 124 is, and the device whose settings battery control adds. */
    at: Pick<Parameters<typeof sunspecBatteryControl>[0], 'target' | 'storage' | 'device'>;
    battery: BatteryConfig | undefined;
    controls: ModelData;
    bank: ModelData | undefined;
  },
): Promise<PolledBatteryControl | undefined> {
  const { at, controls } = args;
  const { device } = at;
  const limits = storageLimits(args.battery, controls, args.bank);
  if (!limits) {
    ctx.log.warn(`${device}: ${NO_CAPACITY}`);
    return undefined;
  }
  // InOutWRte_RvrtTms not implemented: nothing on the device ends a forced command.
  const bounded = controls.u16(13) !== null;
  if (!bounded) ctx.log.warn(`${device}: ${NO_REVERT}`);
  return sunspecBatteryControl({
    ...at,
    limits,
    bounded,
    ...controlContext(ctx, device, await loadBatteryCommand(ctx.store)),
  });
}

/** The inverter's declaration with `strings` MPPT inputs (and battery control), replaced as discovery learns more. */
function inverterDeclaration(ctx: PluginContext, device: string, pollIntervalMs: number) {
  let undeclare: Disposer | undefined;
  const declaration = {
    strings: 0,
    declare(strings: number, storage: PolledBatteryControl | undefined) {
      undeclare?.();
      const control = storage?.control;
      undeclare = ctx.topics.declare({
        device,
        pollIntervalMs,
        metrics: [...inverterDeclarations(strings), ...(control ? [BATTERY_SOC, ...control.metrics] : [])],
        settings: control?.settings ?? [],
      });
      declaration.strings = strings;
    },
  };
  return declaration;
}

/** Whether the grid meter counts export as positive: as configured, or (auto) by the device's manufacturer. */
function countsExportPositive(meterSign: z.infer<typeof configSchema>['meterSign'], manufacturer = ''): boolean {
  return meterSign === 'export-positive' || (meterSign === 'auto' && EXPORT_POSITIVE_MANUFACTURERS.test(manufacturer));
}

const NO_MARKER =
  'no SunSpec marker ("SunS") at 40000, 0 or 50000; enable SunSpec Modbus on the inverter and check unitId (SMA answers on 126)';
const NO_REVERT =
  'model 124 does not implement InOutWRte_RvrtTms: a forced battery command has no end on the device (battery_control_lease 0)';
const NO_CAPACITY =
  "model 124 offers storage controls, but neither config.battery nor model 802 gives the battery's capacity: no battery control";

/**
 * The inverter's and the battery's values from one poll's reads: the meter turned round when
 * it counts export as positive, and (Fronius GEN24) the battery's power from model 160's
 * storage modules when models 124/802 do not give it.
 */
function pollValues(
  read: Partial<Record<'inverter' | 'mppt' | 'meter' | 'storage' | 'battery', ModelData>>,
  exportPositive: boolean,
): { values: Values; bank: Values | undefined } {
  const { storage_power: storagePower, ...strings } = read.mppt ? mpptValues(read.mppt) : {};
  const meter = read.meter ? meterValues(read.meter) : {};
  if (exportPositive && typeof meter.grid_power === 'number') meter.grid_power = -meter.grid_power || 0;
  let bank = read.storage || read.battery ? batteryValues(read.storage, read.battery) : undefined;
  if (storagePower !== undefined && (bank?.power ?? null) === null) bank = { ...bank, power: storagePower };
  const values: Values = { ...inverterValues(read.inverter!), ...strings, ...meter };
  values.pv_power = strings.pv_power ?? values.pv_power ?? null;
  values.battery_power = bank?.power ?? null;
  values.load_power = loadPower(values);
  return { values, bank };
}

/** The state of charge on the inverter itself, for a planner that reads the controlling device. */
const BATTERY_SOC = { name: 'battery_state_of_charge', displayName: 'Battery state of charge', unit: '%' };

/**
 * What the house draws: the inverter's AC output plus what the grid meter imports (a meter at
 * the grid connection, as SunSpec inverters place theirs). Null without either.
 */
function loadPower(values: Values): number | null {
  const { output_power: output, grid_power: grid } = values;
  return typeof output === 'number' && typeof grid === 'number' ? round(output + grid) : null;
}
