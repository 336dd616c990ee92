/*
 * What every Modbus inverter driver does around its own register reading: which devices of
 * the instance sit on which unit, and keeping those devices' availability and the plugin's
 * status in step with the unit's answers.
 */
import { z } from 'zod';
import type { Device, Disposer, PluginContext } from '../context.js';
import { ConfigError, NoAnswerError } from '../errors.js';
import { ModbusExceptionError, type ModbusClient } from './modbus.js';
import { describeException } from './modbus-frames.js';

/**
 * Per-device config of a Modbus inverter: its unit id (default 1). Use it as the plugin's
 * `deviceConfigSchema`.
 *
 * @example
 * { "id": "inverter_2", "config": { "unitId": 2 } } // a second inverter behind the same gateway
 */
export const unitIdDeviceConfigSchema = z.strictObject({
  unitId: z
    .number()
    .int()
    .min(1)
    .max(247)
    .optional()
    .describe('Modbus unit id of this inverter (default 1); give each inverter behind one gateway its own.')
    .meta({ title: 'Modbus unit id' }),
});

/** One inverter on one Modbus unit, and the battery it reports (if the instance lists one). */
export interface InverterOnUnit {
  inverter: Device;
  battery?: Device;
  unitId: number;
}

/**
 * The instance's inverter, its battery if listed, and the unit id to ask (the inverter's
 * `unitId`, else `defaultUnitId`, 1 unless given): for drivers that read one inverter (and the battery behind it) per instance. Anything else is a ConfigError
 * saying what to list instead.
 *
 * @example
 * const { inverter, battery, unitId } = inverterOnUnit(ctx.devices, 'deye');
 */
export function inverterOnUnit(devices: readonly Device[], plugin: string, defaultUnitId = 1): InverterOnUnit {
  const inverters = devices.filter((d) => d.kind === 'inverter');
  const batteries = devices.filter((d) => d.kind === 'battery');
  const [inverter] = inverters;
  if (!inverter || inverters.length > 1 || batteries.length > 1) {
    throw new ConfigError(
      `a ${plugin} instance reads one inverter and at most its battery (["inverter_1"] or ["inverter_1", "battery_1"]), not ${JSON.stringify(devices.map((d) => d.id))}; add an instance per inverter`,
    );
  }
  const [battery] = batteries;
  if (battery?.config.unitId !== undefined)
    throw new ConfigError(`${battery.id}: the battery is read through its inverter; give unitId on ${inverter.id}`);
  const unitId = (inverter.config.unitId as number | undefined) ?? defaultUnitId;
  return { inverter, unitId, ...(battery ? { battery } : {}) };
}

/**
 * Watches the devices of one Modbus unit. `poll(run)` runs one poll: when the unit does not
 * answer, answers only with malformed frames, or refuses a read with a Modbus exception,
 * every device is marked unavailable at once (their values read null, nothing is recorded)
 * and the reason names what happened (the exception by name: illegal data address, server
 * device busy, ...); bad frames skipped meanwhile are logged. The link's
 * disconnects show in the plugin's status until it reconnects. Devices come back with the
 * next good publish.
 *
 * @example
 * const unit = watchUnit(ctx, { modbus, unitId, devices: [inverter, battery] });
 * ctx.scheduler.every({ name: 'poll', intervalMs, run: ({ signal }) => unit.poll(() => readAndPublish(signal)) });
 * return () => { unit.dispose(); modbus.release(); };
 */
export function watchUnit(
  ctx: Pick<PluginContext, 'topics' | 'status' | 'log'>,
  { modbus, unitId, devices }: { modbus: ModbusClient; unitId: number; devices: readonly Device[] },
): { poll<T>(run: () => Promise<T>): Promise<T>; dispose: Disposer } {
  const { link } = modbus;
  const where = `unit ${unitId} at ${link.description}`;
  let badFrames = link.stats.badFrames;
  // The link's reasons and errors already name it ("192.168.1.40:502: connection lost ...").
  const offDisconnect = link.on('disconnect', (reason) => ctx.status.error({ message: reason }));
  const detail = (message: string) =>
    message.startsWith(`${link.description}: `) ? message.slice(link.description.length + 2) : message;
  const offConnect = link.on('connect', () => ctx.status.ok());
  return {
    async poll(run) {
      try {
        return await run();
      } catch (err) {
        if (err instanceof ModbusExceptionError) {
          // The unit refused a read (illegal address, busy, ...): its values are not current.
          const reason = `${where} answered a read with ${describeException(err.code)}`;
          for (const device of devices) ctx.topics.markUnavailable({ device: device.id, reason });
          throw err;
        }
        if (!(err instanceof NoAnswerError)) throw err;
        const what = err.message.includes(': malformed reply') ? 'malformed reply' : 'no answer';
        const reason = `${what} from ${where}: ${detail(err.message)}`;
        for (const device of devices) ctx.topics.markUnavailable({ device: device.id, reason });
        throw new NoAnswerError({
          message: `${devices.map((d) => d.id).join(', ')}: ${reason}`,
          ...(err.timeoutMs === undefined ? {} : { timeoutMs: err.timeoutMs }),
        });
      } finally {
        const now = link.stats.badFrames;
        if (now > badFrames) ctx.log.warn(`skipped ${now - badFrames} bad frame(s) from ${link.description}`);
        badFrames = now;
      }
    },
    dispose() {
      offDisconnect();
      offConnect();
    },
  };
}
