/**
 * The Growatt SPH hybrid inverter driver: polls the register map over Modbus RTU (serial or
 * an RS485-over-TCP gateway) or Modbus TCP (a ShineLAN-X or an RS485 gateway), publishes the
 * inverter's and battery's readings under the standard vocabulary and writes its battery
 * settings (checked by reading the register back).
 */
import { definePlugin, z } from '@heliograph/plugins-sdk';
import {
  connectionSchema,
  inverterOnUnit,
  openModbus,
  pollingFields,
  readRegisterMap,
  registerMapDeclarations,
  unitIdDeviceConfigSchema,
  watchUnit,
} from '@heliograph/plugins-sdk/connections';
import { growattMap, identityMap } from './register-map.js';

/**
 * plugins.json `config` of a growatt instance.
 *
 * @example
 * { "connection": { "type": "serial", "path": "/dev/ttyUSB0", "baudRate": 9600 }, "pollIntervalMs": 5000 }
 */
const configSchema = z.strictObject({ connection: connectionSchema, ...pollingFields });

export default definePlugin({
  id: 'growatt',
  configSchema,
  deviceConfigSchema: unitIdDeviceConfigSchema,
  setup(ctx, config) {
    const { inverter, battery, unitId } = inverterOnUnit(ctx.devices, 'growatt');
    const timeoutMs = Math.min(config.timeoutMs, config.pollIntervalMs / 2);
    const modbus = openModbus(config.connection, { timeoutMs });
    const devices = battery ? [inverter, battery] : [inverter];
    const unit = watchUnit(ctx, { modbus, unitId, devices });
    for (const device of devices) {
      ctx.topics.declare({
        device: device.id,
        pollIntervalMs: config.pollIntervalMs,
        ...registerMapDeclarations(growattMap, {
          device: device === inverter ? 'inverter' : 'battery',
          modbus,
          unitId,
          timeoutMs,
        }),
        identity: { manufacturer: 'Growatt', model: 'SPH' },
      });
    }
    let identified = false;
    const poll = async (signal: AbortSignal) => {
      if (!identified) {
        const { inverter: id } = await readRegisterMap(modbus, unitId, identityMap, { signal });
        for (const device of devices)
          ctx.topics.identify({ device: device.id, identity: { serial: String(id.serial) } });
        identified = true;
      }
      const values = await readRegisterMap(modbus, unitId, growattMap, { signal });
      ctx.topics.publish({ device: inverter.id, values: values.inverter });
      if (battery) ctx.topics.publish({ device: battery.id, values: values.battery });
    };
    ctx.scheduler.every({
      name: 'poll',
      intervalMs: config.pollIntervalMs,
      run: ({ signal }) => unit.poll(() => poll(signal)),
    });
    return () => {
      unit.dispose();
      modbus.release();
    };
  },
});
