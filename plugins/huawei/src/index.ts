/**
 * The Huawei SUN2000 hybrid inverter driver, with its LUNA2000 battery and power meter, over
 * Modbus TCP (the SDongle, or the inverter's own port) or RS485: identifies the unit (model,
 * serial), polls the register map (register-map.ts), publishes the inverter's and battery's
 * readings under the standard vocabulary and writes the battery's settings (checked by reading
 * the register back). Where a LUNA2000 is present (or the config describes the battery) it
 * declares battery control through the forcible charge/discharge (battery-control.ts): the
 * first poll after its declaration ends a forced command found on the device, and the stop
 * writes Normal before the connection closes.
 *
 * Huawei's units take no request for a moment after a connection opens (wlcrs/huawei-solar-lib
 * src/huawei_solar/modbus.py: WAIT_ON_CONNECT = 1500 ms): each poll and each command waits
 * `connectDelayMs` after a (re)connect before its first request.
 */
import { setTimeout as delay } from 'node:timers/promises';
import {
  batteryConfigSchema,
  definePlugin,
  loadBatteryCommand,
  z,
  type Disposer,
  type PolledBatteryControl,
} from '@heliograph/plugins-sdk';
import {
  connectionSchema,
  controlContext,
  declareControlled,
  openInverterUnit,
  pollingFields,
  publishControlled,
  readRegisterMap,
  stopControlled,
  type StreamLink,
} from '@heliograph/plugins-sdk/connections';
import { huaweiBatteryControl, huaweiLimits } from './battery-control.js';
import { huaweiMap, identityMap } from './register-map.js';

/**
 * plugins.json `config` of a huawei instance; the inverter entry may give its Modbus `unitId`
 * (default 1: the first inverter behind an SDongle; 0 on the inverter's own port).
 *
 * @example
 * { "connection": { "type": "tcp", "host": "192.168.1.70", "port": 502 }, "pollIntervalMs": 10000, "timeoutMs": 5000 }
 */
const configSchema = z.strictObject({
  connection: connectionSchema,
  ...pollingFields,
  connectDelayMs: z
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(1500)
    .describe('How long to wait after the connection opens before the first request (Huawei units need a moment).')
    .meta({ title: 'Wait after connect (ms)' }),
  battery: batteryConfigSchema.optional(),
});

/**
 * Per-device config: the inverter's Modbus unit id, 0..247 (an SDongle forwards 1.. to its
 * inverters and answers on 100 itself; the inverter's own port answers 0).
 *
 * @example
 * { "id": "inverter_1", "config": { "unitId": 0 } }
 */
const deviceConfigSchema = z.strictObject({
  unitId: z
    .number()
    .int()
    .min(0)
    .max(247)
    .optional()
    .describe("Modbus unit id of this inverter: 1 (default) behind an SDongle, 0 on the inverter's own port.")
    .meta({ title: 'Modbus unit id' }),
});

const IDENTITY = { manufacturer: 'Huawei' } as const;

/**
 * Resolves once the link is open and `delayMs` have passed since it (re)connected; a link that
 * does not open within `timeoutMs` is left to the request to report.
 */
function connectWait(link: StreamLink, delayMs: number, timeoutMs: number) {
  let readyAt = link.connected ? Date.now() + delayMs : 0;
  const off = link.on('connect', () => (readyAt = Date.now() + delayMs));
  const opened = (signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const done = () => {
        offOpen();
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const offOpen = link.on('connect', done);
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener('abort', done, { once: true });
    });
  return {
    async settle(signal: AbortSignal): Promise<void> {
      if (!link.connected) await opened(signal);
      const wait = readyAt - Date.now();
      if (wait > 0 && link.connected) await delay(wait, undefined, { signal });
    },
    dispose: off,
  };
}

export default definePlugin({
  id: 'huawei',
  configSchema,
  deviceConfigSchema,
  async setup(ctx, config) {
    const unit = openInverterUnit(ctx, config, { plugin: 'huawei', defaultUnitId: 1 });
    const { inverter, unitId, devices, modbus, timeoutMs } = unit;
    const { pollIntervalMs } = config;
    const wait = connectWait(modbus.link, config.connectDelayMs, timeoutMs);
    const initialCommand = await loadBatteryCommand(ctx.store);
    /** Battery control, once the first poll showed a battery (or the config describes one). */
    let storage: PolledBatteryControl | null = null;

    let undeclare: Disposer[] = [];
    const declare = () => {
      for (const off of undeclare) off();
      undeclare = declareControlled(ctx, unit, huaweiMap, { pollIntervalMs, identity: IDENTITY, control: storage });
    };
    declare();

    let identified = false;
    let decided = false;
    unit.startPolling(async (signal) => {
      await wait.settle(signal);
      if (!identified) {
        const { inverter: id } = await readRegisterMap(modbus, unitId, identityMap, { signal });
        for (const device of devices)
          ctx.topics.identify({ device: device.id, identity: { model: String(id.model), serial: String(id.serial) } });
        identified = true;
      }
      const values = await readRegisterMap(modbus, unitId, huaweiMap, { signal });
      if (!decided) {
        decided = true;
        const limits = huaweiLimits(config.battery, values);
        if (limits) {
          storage = huaweiBatteryControl({
            modbus,
            unitId,
            timeoutMs,
            settle: (s) => wait.settle(s),
            limits,
            ...controlContext(ctx, inverter.id, initialCommand),
          });
          declare();
        } else ctx.log.warn(`${inverter.id}: ${NO_BATTERY}`);
      }
      const soc = values.inverter.battery_state_of_charge;
      await publishControlled(ctx, unit, values, { control: storage, soc, signal });
    });

    // Normal is written while the connection is still open; a failure is in the audit and here.
    return () => stopControlled(ctx, inverter, storage, wait.dispose, unit.dispose);
  },
});

const NO_BATTERY =
  'the unit reports no LUNA2000 (rated capacity 0 at register 37758) and config.battery is not given: no battery control';
