/**
 * The GoodWe ET / EH hybrid inverter driver: polls the register map over Modbus RTU in UDP
 * (the inverter's own Wi-Fi/LAN module on port 8899, unit 0xF7, replies prefixed AA 55) or
 * RS485 (serial or a gateway), publishes the
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
import { goodweMap } from './register-map.js';

/**
 * plugins.json `config` of a goodwe instance.
 *
 * @example
 * { "connection": { "type": "rtu-over-udp", "host": "192.168.1.60", "replyPrefix": "aa55" } } with inverter_1's unitId 247
 */
const configSchema = z.strictObject({ connection: connectionSchema, ...pollingFields });

export default definePlugin({
  id: 'goodwe',
  configSchema,
  deviceConfigSchema: unitIdDeviceConfigSchema,
  setup(ctx, config) {
    const { inverter, battery } = inverterOnUnit(ctx.devices, 'goodwe');
    // GoodWe's communication address is 0xF7 (247) unless set otherwise on the inverter.
    const unitId = (inverter.config.unitId as number | undefined) ?? 0xf7;
    const timeoutMs = Math.min(config.timeoutMs, config.pollIntervalMs / 2);
    const modbus = openModbus(config.connection, { timeoutMs });
    const devices = battery ? [inverter, battery] : [inverter];
    const unit = watchUnit(ctx, { modbus, unitId, devices });
    for (const device of devices) {
      ctx.topics.declare({
        device: device.id,
        pollIntervalMs: config.pollIntervalMs,
        ...registerMapDeclarations(goodweMap, {
          device: device === inverter ? 'inverter' : 'battery',
          modbus,
          unitId,
          timeoutMs,
        }),
        identity: { manufacturer: 'GoodWe', model: 'ET/EH' },
      });
    }
    const poll = async (signal: AbortSignal) => {
      const values = await readRegisterMap(modbus, unitId, goodweMap, { signal });
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
