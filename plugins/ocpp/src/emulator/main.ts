/**
 * The emulated OCPP 1.6J charge point, as `heliograph emulate ocpp-charger` starts it: it
 * dials the central system at `--url` (ws://host:port/ocpp/<charge point id>) with the HTTP
 * Basic `--password`, boots, and charges a car that plugs in (`--plugged`, or each day at
 * `--plug-in-at` until `--unplug-at`, local time: the demo's evening car).
 */
import { parseArgs } from 'node:util';
import { EmulatedChargePoint, type ChargePointOptions } from './charge-point.js';

export { EmulatedChargePoint, type ChargePointOptions, type ConnectorStatus } from './charge-point.js';
export { ProfileStore, type Limit } from './profiles.js';

/** A whole number flag from `min` to `max`, or undefined when absent. */
function intFlag(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`--${name}: expected a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}

function timeFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(value);
  if (!m) throw new Error(`--${name}: expected a local time HH:MM, got "${value}"`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/** `heliograph emulate ocpp-charger --url ws://127.0.0.1:8080/ocpp/CP1 --password ... [--plugged]`. */
export async function runEmulator(flags: string[]): Promise<{ describe: string; close(): Promise<void> }> {
  const { values } = parseArgs({
    args: flags,
    options: {
      url: { type: 'string' },
      password: { type: 'string' },
      'default-current': { type: 'string' },
      phases: { type: 'string' },
      'meter-interval': { type: 'string' },
      authorize: { type: 'boolean' },
      'car-kwh': { type: 'string' },
      'car-soc': { type: 'string' },
      plugged: { type: 'boolean' },
      'plug-in-at': { type: 'string' },
      'unplug-at': { type: 'string' },
    },
  });
  if (!values.url || !/^wss?:\/\/.+\/[^/]+$/.test(values.url))
    throw new Error('--url: give the central system URL with the charge point id, e.g. ws://127.0.0.1:8080/ocpp/CP1');
  const phases = intFlag('phases', values.phases, 1, 3);
  if (phases === 2) throw new Error('--phases: 1 or 3');
  const options: ChargePointOptions = {
    url: values.url,
    ...(values.password === undefined ? {} : { password: values.password }),
    defaultCurrentA: intFlag('default-current', values['default-current'], 6, 80) ?? 16,
    phases: (phases ?? 3) as 1 | 3,
    meterIntervalS: intFlag('meter-interval', values['meter-interval'], 1, 3600) ?? 10,
    authorizeFirst: values.authorize ?? false,
    car: {
      capacityKWh: intFlag('car-kwh', values['car-kwh'], 1, 200) ?? 60,
      soc: intFlag('car-soc', values['car-soc'], 0, 100) ?? 30,
    },
  };
  const plugInAt = timeFlag('plug-in-at', values['plug-in-at']);
  const unplugAt = timeFlag('unplug-at', values['unplug-at']) ?? 7 * 60 + 30;
  const point = new EmulatedChargePoint(options);
  await point.start();
  if (values.plugged) await point.plugIn();
  const evening =
    plugInAt === undefined
      ? undefined
      : setInterval(() => {
          const d = new Date(point.now());
          const minute = d.getHours() * 60 + d.getMinutes();
          if (minute === plugInAt && !point.plugged) void point.plugIn().catch(() => {});
          if (minute === unplugAt && point.plugged) void point.unplug().catch(() => {});
        }, 30_000);
  return {
    describe: `charge point connected to ${values.url}${values.plugged ? ', car plugged in' : ''}`,
    close: async () => {
      if (evening) clearInterval(evening);
      await point.close();
    },
  };
}
