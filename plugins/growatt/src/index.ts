/**
 * The Growatt storage inverter driver (SPH hybrid, SPA AC-coupled): identifies the family
 * from the device type code (holding 43) or the instance's `family`, polls that family's
 * register map over Modbus RTU (serial or an RS485-over-TCP gateway) or Modbus TCP (a
 * ShineLAN-X or an RS485 gateway), publishes the inverter's and battery's readings under the
 * standard vocabulary and writes its battery settings (checked by reading the register back).
 * A unit it cannot identify, or of another family than the one configured, stops the
 * instance with the code it read.
 */
import { definePlugin, z, type Disposer } from '@heliograph/plugins-sdk';
import {
  connectionSchema,
  openInverterUnit,
  pollingFields,
  readRegisterMap,
  registerMapDeclarations,
  unitIdDeviceConfigSchema,
  type RegisterMap,
} from '@heliograph/plugins-sdk/connections';
import { growattModel } from './models.js';
import { identityMap } from './register-map.js';

/**
 * plugins.json `config` of a growatt instance.
 *
 * @example
 * { "connection": { "type": "serial", "path": "/dev/ttyUSB0", "baudRate": 9600 }, "family": "auto", "pollIntervalMs": 5000 }
 */
const configSchema = z.strictObject({
  connection: connectionSchema,
  ...pollingFields,
  family: z
    .enum(['auto', 'sph', 'spa'])
    .default('auto')
    .describe(
      'auto: the family the unit reports (device type code, holding 43), refusing a code it does not know; sph or spa: that family when the code is unknown (a known code of the other family is still refused).',
    )
    .meta({ title: 'Family' }),
});

const IDENTITY = { manufacturer: 'Growatt' } as const;

export default definePlugin({
  id: 'growatt',
  configSchema,
  deviceConfigSchema: unitIdDeviceConfigSchema,
  setup(ctx, config) {
    const unit = openInverterUnit(ctx, config, { plugin: 'growatt' });
    const { inverter, battery, unitId, devices, modbus, timeoutMs } = unit;
    const { pollIntervalMs } = config;
    let undeclare: Disposer[] = devices.map((device) =>
      ctx.topics.declare({ device: device.id, pollIntervalMs, metrics: [], identity: IDENTITY }),
    );

    /** Identifies the unit and declares its family's metrics and settings (ConfigError for a unit it does not read). */
    const identify = async (signal: AbortSignal): Promise<RegisterMap> => {
      const { inverter: id } = await readRegisterMap(modbus, unitId, identityMap, { signal });
      const model = growattModel(Number(id.device_type), config.family);
      const { map } = model.value;
      for (const off of undeclare) off();
      undeclare = devices.map((device) =>
        ctx.topics.declare({
          device: device.id,
          pollIntervalMs,
          ...registerMapDeclarations(map, {
            device: device === inverter ? 'inverter' : 'battery',
            modbus,
            unitId,
            timeoutMs,
          }),
          identity: IDENTITY,
        }),
      );
      for (const device of devices)
        ctx.topics.identify({ device: device.id, identity: { model: model.label, serial: String(id.serial) } });
      return map;
    };

    let map: RegisterMap | undefined;
    unit.startPolling(async (signal) => {
      map ??= await identify(signal);
      const values = await readRegisterMap(modbus, unitId, map, { signal });
      ctx.topics.publish({ device: inverter.id, values: values.inverter });
      if (battery) ctx.topics.publish({ device: battery.id, values: values.battery });
    });
    return unit.dispose;
  },
});
