/**
 * The Victron GX driver: reads a GX device (Cerbo GX, Venus GX, Venus OS on a Raspberry Pi)
 * over Modbus TCP. The system unit (100) gives PV, load, grid and battery totals and the
 * ESS settings; an optional battery unit (a BMV / SmartShunt or BMS) and VE.Bus unit (the
 * Multi / Quattro) add their own values. Unit ids are listed under Settings -> Services ->
 * Modbus TCP -> Available services on the GX. With `battery` given, the inverter offers battery
 * control through the GX's Dynamic ESS schedule slot 0 (battery-control.ts).
 */
import { batteryConfigSchema, definePlugin, loadBatteryCommand, z, type MetricValue } from '@heliograph/plugins-sdk';
import {
  connectionSchema,
  controlContext,
  openInverterUnit,
  pollingFields,
  publishControlled,
  readRegisterMap,
  registerMapDeclarations,
  stopControlled,
  type RegisterMap,
} from '@heliograph/plugins-sdk/connections';
import { victronBatteryControl } from './battery-control.js';
import { batteryMap, identityMap, systemMap, vebusMap } from './register-map.js';

const unitId = (title: string) => z.number().int().min(0).max(247).meta({ title });

/**
 * plugins.json `config` of a victron instance.
 *
 * @example
 * { "connection": { "type": "tcp", "host": "192.168.1.50", "port": 502 }, "batteryUnit": 225, "vebusUnit": 227 }
 */
const configSchema = z.strictObject({
  connection: connectionSchema,
  ...pollingFields,
  systemUnit: unitId('System unit id').default(100).describe('Unit id of com.victronenergy.system (100).'),
  batteryUnit: unitId('Battery unit id')
    .optional()
    .describe('Unit id of the battery monitor or BMS (e.g. 225); without it the battery values come from the system.'),
  vebusUnit: unitId('VE.Bus unit id')
    .optional()
    .describe(
      'Unit id of the Multi / Quattro (e.g. 227, 228 or 276); adds its state, mode, AC voltage and output power.',
    ),
  battery: batteryConfigSchema.optional(),
});

export default definePlugin({
  id: 'victron',
  configSchema,
  async setup(ctx, config) {
    // The GX system is the inverter, on the system unit.
    const unit = openInverterUnit(ctx, config, { plugin: 'victron', defaultUnitId: config.systemUnit });
    const { inverter, battery, devices, modbus, timeoutMs } = unit;
    /** The maps to read, each on its unit. */
    const reads: Array<{ unitId: number; map: RegisterMap }> = [{ unitId: config.systemUnit, map: systemMap }];
    if (config.batteryUnit !== undefined) reads.push({ unitId: config.batteryUnit, map: batteryMap });
    if (config.vebusUnit !== undefined) reads.push({ unitId: config.vebusUnit, map: vebusMap });
    // Battery control when the battery's limits are given; only its power and target are kept across restarts.
    const storage = config.battery
      ? victronBatteryControl({
          modbus,
          unitId: config.systemUnit,
          timeoutMs,
          battery: config.battery,
          ...controlContext(ctx, inverter.id, await loadBatteryCommand(ctx.store)),
        })
      : undefined;

    for (const device of devices) {
      const declared = reads.map(({ unitId: id, map }) =>
        registerMapDeclarations(map, {
          device: device === inverter ? 'inverter' : 'battery',
          modbus,
          unitId: id,
          timeoutMs,
        }),
      );
      const metrics = new Map(declared.flatMap((d) => d.metrics).map((m) => [m.name, m]));
      const control = device === inverter ? storage?.control : undefined;
      ctx.topics.declare({
        device: device.id,
        pollIntervalMs: config.pollIntervalMs,
        metrics: [...metrics.values(), ...(control?.metrics ?? [])],
        settings: [...declared.flatMap((d) => d.settings), ...(control?.settings ?? [])],
        identity: { manufacturer: 'Victron Energy', model: 'GX' },
      });
    }

    let identified = false;
    const poll = async (signal: AbortSignal) => {
      if (!identified) {
        const { inverter: id } = await readRegisterMap(modbus, config.systemUnit, identityMap, { signal });
        ctx.topics.identify({ device: inverter.id, identity: { serial: String(id.serial) } });
        identified = true;
      }
      const inverterValues: Record<string, MetricValue> = {};
      const batteryValues: Record<string, MetricValue> = {};
      // Later units win: the battery monitor's values replace the system's battery totals.
      for (const { unitId: id, map } of reads) {
        const values = await readRegisterMap(modbus, id, map, { signal });
        Object.assign(inverterValues, values.inverter);
        Object.assign(batteryValues, values.battery);
      }
      const values = { inverter: inverterValues, battery: batteryValues };
      await publishControlled(ctx, { inverter, battery }, values, {
        control: storage,
        soc: batteryValues.state_of_charge,
        signal,
      });
    };
    unit.startPolling(poll);
    // Normal is written while the connection is still open; a failure is in the audit and here.
    return () => stopControlled(ctx, inverter, storage, unit.dispose);
  },
});
