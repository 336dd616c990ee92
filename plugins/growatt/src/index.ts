/**
 * The Growatt storage inverter driver (SPH hybrid, SPA AC-coupled): identifies the family
 * from the device type code (holding 30000, else holding 43; models.ts) or the instance's
 * `family`, polls that family's register map over Modbus RTU (serial or an RS485-over-TCP
 * gateway) or Modbus TCP (a ShineLAN-X or an RS485 gateway), publishes the inverter's and
 * battery's readings under the standard vocabulary and writes its battery settings (checked
 * by reading the register back). With `battery` in the config it offers battery control
 * through slot 1 of the battery-first and grid-first time slots (battery-control.ts): the
 * first poll after its declaration ends a forced slot found on the device, and the stop
 * writes Normal before the connection closes. A unit it cannot identify, or of another
 * family than the one configured, stops the instance with the codes it read.
 */
import {
  batteryConfigSchema,
  definePlugin,
  DeviceRefusedError,
  loadBatteryCommand,
  z,
  type Disposer,
  type PolledBatteryControl,
} from '@heliograph/plugins-sdk';
import {
  connectionSchema,
  declareControlled,
  openInverterUnit,
  pollingFields,
  publishControlled,
  readRegisterMap,
  stopControlled,
  unitControl,
  unitIdDeviceConfigSchema,
  type RegisterMap,
} from '@heliograph/plugins-sdk/connections';
import { growattBatteryControl } from './battery-control.js';
import { growattModel } from './models.js';
import { identityMap, vppTypeMap } from './register-map.js';

/**
 * plugins.json `config` of a growatt instance.
 *
 * @example
 * { "connection": { "type": "serial", "path": "/dev/ttyUSB0", "baudRate": 9600 }, "family": "auto", "pollIntervalMs": 5000 }
 */
const configSchema = z.strictObject({
  connection: connectionSchema,
  ...pollingFields,
  battery: batteryConfigSchema.optional(),
  family: z
    .enum(['auto', 'sph', 'spa'])
    .default('auto')
    .describe(
      "auto: the family of the device type code the unit reports (holding 30000, else holding 43), refusing a unit whose code is not in Growatt's table; sph or spa: that family when the code is unknown (a known code of the other family is still refused).",
    )
    .meta({ title: 'Family' }),
});

const IDENTITY = { manufacturer: 'Growatt' } as const;

export default definePlugin({
  id: 'growatt',
  configSchema,
  deviceConfigSchema: unitIdDeviceConfigSchema,
  async setup(ctx, config) {
    const unit = openInverterUnit(ctx, config, { plugin: 'growatt' });
    const { inverter, battery, unitId, devices, modbus } = unit;
    const { pollIntervalMs } = config;
    // Only the power and target are kept across restarts; the mode starts Normal.
    const initialCommand = battery && config.battery ? await loadBatteryCommand(ctx.store) : undefined;
    let growatt: PolledBatteryControl | null = null;
    let undeclare: Disposer[] = devices.map((device) =>
      ctx.topics.declare({ device: device.id, pollIntervalMs, metrics: [], identity: IDENTITY }),
    );

    /** The VPP device type code (holding 30000), or null from a unit that refuses the VPP range. */
    const vppCode = async (signal: AbortSignal): Promise<number | null> => {
      try {
        return Number((await readRegisterMap(modbus, unitId, vppTypeMap, { signal })).inverter.device_type);
      } catch (err) {
        if (err instanceof DeviceRefusedError) return null;
        throw err;
      }
    };

    /** Identifies the unit and declares its family's metrics and settings (ConfigError for a unit it does not read). */
    const identify = async (signal: AbortSignal): Promise<RegisterMap> => {
      const { inverter: id } = await readRegisterMap(modbus, unitId, identityMap, { signal });
      const codes = { vpp: await vppCode(signal), legacy: Number(id.device_type) };
      const model = growattModel(codes, config.family);
      const { map } = model.value;
      if (battery && config.battery)
        growatt = growattBatteryControl(unitControl(ctx, unit, config.battery, initialCommand));
      for (const off of undeclare) off();
      undeclare = declareControlled(ctx, unit, map, { pollIntervalMs, identity: IDENTITY, control: growatt });
      for (const device of devices)
        ctx.topics.identify({ device: device.id, identity: { model: model.label, serial: String(id.serial) } });
      return map;
    };

    let map: RegisterMap | undefined;
    unit.startPolling(async (signal) => {
      map ??= await identify(signal);
      const values = await readRegisterMap(modbus, unitId, map, { signal });
      await publishControlled(ctx, unit, values, { control: growatt, soc: values.battery.state_of_charge, signal });
    });
    // Normal is written while the connection is still open; a failure is in the audit and here.
    return () => stopControlled(ctx, inverter, growatt, unit.dispose);
  },
});
