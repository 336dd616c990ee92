/*
 * The deye instance config and its devices: one inverter, optionally its battery, on one
 * Modbus unit reached through one connection.
 */
import { ConfigError, z, type Device } from '@heliograph/plugins-sdk';
import { connectionSchema, pollingFields } from '@heliograph/plugins-sdk/connections';

/**
 * plugins.json `config` of a deye instance.
 *
 * @example
 * { "connection": { "type": "solarman", "host": "192.168.1.40", "loggerSerial": 2712345678 }, "pollIntervalMs": 5000 }
 */
export const configSchema = z.strictObject({ connection: connectionSchema, ...pollingFields });
export type DeyeConfig = z.output<typeof configSchema>;

/**
 * Per-device config: the inverter's Modbus unit id (default 1). The battery is read through
 * its inverter and takes none.
 *
 * @example
 * { "id": "inverter_2", "config": { "unitId": 2 } }
 */
export const deviceConfigSchema = z.strictObject({
  unitId: z
    .number()
    .int()
    .min(1)
    .max(247)
    .optional()
    .describe('Modbus unit id of this inverter (default 1); give each inverter behind one gateway its own.')
    .meta({ title: 'Modbus unit id' }),
});

/** The instance's inverter, its battery if listed, and the unit id to ask. */
export function devicesOf(devices: readonly Device[]): { inverter: Device; battery?: Device; unitId: number } {
  const inverters = devices.filter((d) => d.kind === 'inverter');
  const batteries = devices.filter((d) => d.kind === 'battery');
  if (inverters.length !== 1 || batteries.length > 1) {
    throw new ConfigError(
      `a deye instance drives one inverter and at most one battery (["inverter_1"] or ["inverter_1", "battery_1"]), not ${JSON.stringify(devices.map((d) => d.id))}; add an instance per inverter`,
    );
  }
  const [inverter] = inverters as [Device];
  const [battery] = batteries;
  if (battery?.config.unitId !== undefined)
    throw new ConfigError(`${battery.id}: the battery is read through its inverter; give unitId on ${inverter.id}`);
  const unitId = (inverter.config.unitId as number | undefined) ?? 1;
  return { inverter, unitId, ...(battery ? { battery } : {}) };
}
