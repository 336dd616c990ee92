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
import { DeviceRefusedError, z } from '@heliograph/plugins-sdk';
import { identifiedInverterPlugin, inverterConfigFields, readRegisterMap } from '@heliograph/plugins-sdk/connections';
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
  ...inverterConfigFields,
  family: z
    .enum(['auto', 'sph', 'spa'])
    .default('auto')
    .describe(
      "auto: the family of the device type code the unit reports (holding 30000, else holding 43), refusing a unit whose code is not in Growatt's table; sph or spa: that family when the code is unknown (a known code of the other family is still refused).",
    )
    .meta({ title: 'Family' }),
});

export default identifiedInverterPlugin({
  id: 'growatt',
  configSchema,
  identity: { manufacturer: 'Growatt' },
  identifier(_ctx, config, { unitId, modbus }) {
    /** The VPP device type code (holding 30000), or null from a unit that refuses the VPP range. */
    const vppCode = async (signal: AbortSignal): Promise<number | null> => {
      try {
        return Number((await readRegisterMap(modbus, unitId, vppTypeMap, { signal })).inverter.device_type);
      } catch (err) {
        if (err instanceof DeviceRefusedError) return null;
        throw err;
      }
    };

    /** Identifies the unit and picks its family's map (ConfigError for a unit it does not read). */
    return async function identify(signal, control) {
      const { inverter: id } = await readRegisterMap(modbus, unitId, identityMap, { signal });
      const codes = { vpp: await vppCode(signal), legacy: Number(id.device_type) };
      const model = growattModel(codes, config.family);
      return {
        map: model.value.map,
        control: control && growattBatteryControl(control),
        identity: { model: model.label, serial: String(id.serial) },
      };
    };
  },
});
