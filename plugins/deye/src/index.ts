/**
 * The Deye / Sunsynk single-phase hybrid inverter driver: polls the register map over Modbus
 * TCP, RTU (serial or an RS485-over-TCP gateway) or a Solarman V5 logger, publishes the
 * inverter's and battery's readings under the standard vocabulary, and writes its settings
 * (checked by reading the register back).
 */
import { definePlugin, inverterMetrics, NoAnswerError } from '@heliograph/plugins-sdk';
import {
  ModbusExceptionError,
  openModbus,
  readRegisterMap,
  registerMapDeclarations,
} from '@heliograph/plugins-sdk/connections';
import { configSchema, deviceConfigSchema, devicesOf } from './config.js';
import { deyeMap, identityMap } from './register-map.js';

export default definePlugin({
  id: 'deye',
  configSchema,
  deviceConfigSchema,
  setup(ctx, config) {
    const { inverter, battery, unitId } = devicesOf(ctx.devices);
    const timeoutMs = Math.min(config.timeoutMs, config.pollIntervalMs / 2);
    const modbus = openModbus(config.connection, { timeoutMs });
    const devices = battery ? [inverter, battery] : [inverter];
    const where = `unit ${unitId} at ${modbus.link.description}`;

    for (const device of devices) {
      const { metrics, settings } = registerMapDeclarations(deyeMap, {
        device: device.kind,
        modbus,
        unitId,
        timeoutMs,
      });
      ctx.topics.declare({
        device: device.id,
        pollIntervalMs: config.pollIntervalMs,
        metrics: device.kind === 'inverter' ? [inverterMetrics.pv_power, ...metrics] : metrics,
        settings,
        identity: { manufacturer: 'Deye' },
      });
    }

    let identified = false;
    let badFrames = modbus.link.stats.badFrames;
    ctx.scheduler.every({
      name: 'poll',
      intervalMs: config.pollIntervalMs,
      run: async ({ signal }) => {
        try {
          if (!identified) {
            const { inverter: id } = await readRegisterMap(modbus, unitId, identityMap, { signal });
            for (const device of devices)
              ctx.topics.identify({
                device: device.id,
                identity: { model: String(id.model), serial: String(id.serial) },
              });
            identified = true;
          }
          const values = await readRegisterMap(modbus, unitId, deyeMap, { signal });
          const pv = values.inverter; // pv_power is the sum of the two strings
          ctx.topics.publish({
            device: inverter.id,
            values: { ...pv, pv_power: Number(pv.pv_power_1) + Number(pv.pv_power_2) },
          });
          if (battery) ctx.topics.publish({ device: battery.id, values: values.battery });
        } catch (err) {
          if (err instanceof NoAnswerError || isGatewayNoAnswer(err)) {
            const reason = `no answer from ${where}: ${err.message}`;
            for (const device of devices) ctx.topics.markUnavailable({ device: device.id, reason });
            throw new NoAnswerError({ message: `${devices.map((d) => d.id).join(', ')}: ${reason}`, timeoutMs });
          }
          throw err;
        } finally {
          const now = modbus.link.stats.badFrames;
          if (now > badFrames) ctx.log.warn(`skipped ${now - badFrames} bad frame(s) from ${modbus.link.description}`);
          badFrames = now;
        }
      },
    });

    const offDisconnect = modbus.link.on('disconnect', (reason) =>
      ctx.status.error({ message: `${modbus.link.description}: ${reason}` }),
    );
    const offConnect = modbus.link.on('connect', () => ctx.status.ok());
    return () => {
      offDisconnect();
      offConnect();
      modbus.release();
    };
  },
});

/**
 * A Modbus TCP gateway's exceptions 0x0A (no path to the unit) and 0x0B (the unit did not
 * respond): the gateway answered, the device behind it did not.
 */
function isGatewayNoAnswer(err: unknown): err is ModbusExceptionError {
  return err instanceof ModbusExceptionError && (err.code === 0x0a || err.code === 0x0b);
}
