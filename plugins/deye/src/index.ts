/**
 * The Deye / Sunsynk hybrid inverter driver: identifies the model from register 0 and polls
 * that model's register map (single-phase, three-phase low-voltage or high-voltage) over
 * Modbus TCP, RTU (serial or an RS485-over-TCP gateway) or a Solarman V5 logger; publishes
 * the inverter's and battery's readings under the standard vocabulary and writes its
 * settings (checked by reading the register back). A model it does not know stops the
 * instance with the code it read. With battery control, the first poll after its declaration
 * ends a forced command found on the device, and the stop writes Normal before the
 * connection closes.
 */
import { z } from '@heliograph/plugins-sdk';
import { identifiedInverterPlugin, inverterConfigFields, readRegisterMap } from '@heliograph/plugins-sdk/connections';
import { deyeBatteryControl } from './battery-control.js';
import { deyeModel, identityMap, ratedPowerMap } from './models.js';

/** Used when a unit reports no rated power (registers 16/17 or 20/21 read 0). */
const FALLBACK_RATED_W = 12_000;

/**
 * plugins.json `config` of a deye instance; the inverter entry may give its Modbus `unitId`.
 *
 * @example
 * { "connection": { "type": "solarman", "host": "192.168.1.40", "loggerSerial": 2712345678 }, "pollIntervalMs": 5000 }
 */
const configSchema = z.strictObject({
  ...inverterConfigFields,
  gridPowerFrom: z
    .enum(['auto', 'ct', 'inverter'])
    .default('auto')
    .describe(
      'Single-phase units: grid power from the external CT (register 172), the inverter grid port (169), or auto (the CT once it reads non-zero).',
    )
    .meta({ title: 'Grid power from' }),
});

export default identifiedInverterPlugin({
  id: 'deye',
  configSchema,
  identity: { manufacturer: 'Deye' },
  /**
   * Identifies the unit, chooses its map (ConfigError for a model this driver does not know)
   * and makes battery control through the time-of-use program where the model's program lives.
   */
  identifier: (ctx, config, { unitId, modbus }) =>
    async function identify(signal, control) {
      const { inverter: id } = await readRegisterMap(modbus, unitId, identityMap, { signal });
      const model = deyeModel(Number(id.device_type));
      const rated = await readRegisterMap(modbus, unitId, ratedPowerMap(model.value), { signal });
      let ratedW = Number(rated.inverter.rated_power);
      if (!(ratedW > 0)) {
        ctx.log.warn(`unit ${unitId} reports no rated power; max sell power allows up to ${FALLBACK_RATED_W} W`);
        ratedW = FALLBACK_RATED_W;
      }
      return {
        map: model.value.map({ ratedW, gridPowerSource: config.gridPowerFrom }),
        control: control && deyeBatteryControl({ ...control, tou: model.value.tou, ratedW }),
        identity: { model: model.label, serial: String(id.serial) },
      };
    },
});
