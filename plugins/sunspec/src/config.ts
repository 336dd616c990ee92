/*
 * The sunspec instance config and its devices: one SunSpec inverter (one Modbus unit) and,
 * optionally, the battery it reports in models 124/802.
 */
import { ConfigError, z, type Device } from '@heliograph/plugins-sdk';
import { connectionSchema } from '@heliograph/plugins-sdk/connections';

/**
 * plugins.json `config` of a sunspec instance.
 *
 * @example
 * { "connection": { "type": "tcp", "host": "192.168.1.50", "port": 502 }, "pollIntervalMs": 5000 }
 */
export const configSchema = z.strictObject({
  connection: connectionSchema,
  pollIntervalMs: z.number().int().min(1000).default(5000),
  /** How long one request waits for its reply; never more than half the poll interval. */
  timeoutMs: z.number().int().min(100).default(1500),
});

/**
 * Per-device config: the inverter's Modbus unit id (default 1; SMA answers SunSpec on 126).
 * The battery is read through its inverter and takes none.
 *
 * @example
 * { "id": "inverter_1", "config": { "unitId": 126 } }
 */
export const deviceConfigSchema = z.strictObject({ unitId: z.number().int().min(1).max(247).optional() });

/** The instance's inverter, its battery if listed, and the unit id to ask. */
export function devicesOf(devices: readonly Device[]): { inverter: Device; battery?: Device; unitId: number } {
  const inverters = devices.filter((d) => d.kind === 'inverter');
  const batteries = devices.filter((d) => d.kind === 'battery');
  if (inverters.length !== 1 || batteries.length > 1) {
    throw new ConfigError(
      `a sunspec instance reads one inverter and at most its battery (["inverter_1"] or ["inverter_1", "battery_1"]), not ${JSON.stringify(devices.map((d) => d.id))}; add an instance per inverter`,
    );
  }
  const [inverter] = inverters as [Device];
  const [battery] = batteries;
  if (battery?.config.unitId !== undefined)
    throw new ConfigError(`${battery.id}: the battery is read through its inverter; give unitId on ${inverter.id}`);
  const unitId = (inverter.config.unitId as number | undefined) ?? 1;
  return { inverter, unitId, ...(battery ? { battery } : {}) };
}
