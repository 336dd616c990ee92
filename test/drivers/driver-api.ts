/*
 * What the driver tests share: the real server running one driver instance against an
 * emulator, and what they read from it over HTTP (current values by topic, one instance's
 * status with its devices) and write.
 */
import { after } from 'node:test';
import type { Clock } from '@heliograph/core/clock';
import assert from 'node:assert/strict';
import { type ModbusDevice, type RunningEmulator, startModbusEmulator } from '@heliograph/plugins-sdk/emulator';
import { eventually } from '../helpers/child-server.js';
import { jsonBody, startTestServer, type TestServer } from '../helpers/server.js';

/** One driver instance in plugins.json: the bundled plugin, its devices and its config. */
export interface DriverInstance {
  plugin: string;
  /** The instance's id; default the plugin's. */
  id?: string;
  /** plugins.json device entries: `"inverter_1"`, or `{ "id": "inverter_1", "config": { "unitId": 3 } }`. */
  devices: unknown[];
  /** How the driver reaches the emulator (see {@link connectionTo}). */
  connection: Record<string, unknown>;
  /** The rest of the instance's config. */
  config?: Record<string, unknown>;
  /** The server's clock, when the test moves it. */
  clock?: Clock;
}

/**
 * The driver's `connection` to `emulator` over `type`: its host and port, or for `serial` a
 * pseudo-terminal bridged to its port at `baudRate` (default 9600); `extra` adds the
 * transport's own fields (a logger serial, a reply prefix).
 */
export async function connectionTo(
  emulator: Pick<RunningEmulator, 'host' | 'port'>,
  type: string,
  { baudRate = 9600, ...extra }: { baudRate?: number; [field: string]: unknown } = {},
): Promise<Record<string, unknown>> {
  if (type === 'serial') {
    // Loaded only here: the module checks for socat as it loads, which a test without a serial port must not.
    const { serialBridge } = await import('../helpers/pty-bridge.js');
    return { type, path: await serialBridge(emulator.port), baudRate, ...extra };
  }
  return { type, host: emulator.host, port: emulator.port, ...extra };
}

/**
 * The real server running `driver` against `emulator`. The emulator closes after the server
 * (hooks run in the order they were added), so the driver's stop still reaches the device.
 */
export async function serveDriver(
  emulator: Pick<RunningEmulator, 'close'>,
  driver: DriverInstance,
): Promise<TestServer> {
  const { plugin } = driver;
  try {
    return await startTestServer({
      ...(driver.clock ? { clock: driver.clock } : {}),
      bundled: [plugin],
      plugins: [
        {
          id: driver.id ?? plugin,
          plugin,
          devices: driver.devices,
          config: { connection: driver.connection, ...driver.config },
        },
      ],
    });
  } finally {
    after(() => emulator.close());
  }
}

/** A driver instance polling one Modbus unit (unit id 1) over `transport`. */
export interface ModbusUnitDriver extends Omit<DriverInstance, 'connection'> {
  transport: 'tcp' | 'rtu-over-tcp';
}

/**
 * How the tests of `driver` start it: the Modbus emulator with `unit` as unit 1 and the real
 * server polling it, `config` added to the driver's own.
 */
export function modbusUnitServer(
  driver: ModbusUnitDriver,
): (unit: ModbusDevice, config?: Record<string, unknown>) => Promise<TestServer> {
  const { transport, ...instance } = driver;
  return async (unit, config = {}) => {
    const emulator = await startModbusEmulator({ transport, units: new Map([[1, unit]]) });
    const connection = await connectionTo(emulator, transport);
    return serveDriver(emulator, { ...instance, connection, config: { ...instance.config, ...config } });
  };
}

/** Asserts each topic's value in `values` (current values by topic) as `expected` has it; a failure names the topic. */
export function assertShown(values: Map<string, unknown>, expected: Record<string, unknown>): void {
  for (const [topic, value] of Object.entries(expected)) assert.equal(values.get(topic), value, topic);
}

export interface InstanceState {
  state: string;
  last_error: string | null;
  device_status: Array<{ id: string; available: boolean; reason: string | null }>;
}

/** Current values by topic, from GET /api/v1/metrics. */
export async function valuesOf(server: TestServer): Promise<Map<string, unknown>> {
  const metrics = (await (await server.api('/api/v1/metrics')).json()) as Array<{ topic: string; value: unknown }>;
  return new Map(metrics.map((m) => [m.topic, m.value]));
}

/** The instance `id` as GET /api/v1/plugins shows it. */
export async function instanceOf(server: TestServer, id: string): Promise<InstanceState> {
  const all = (await (await server.api('/api/v1/plugins')).json()) as Array<InstanceState & { id: string }>;
  const found = all.find((p) => p.id === id);
  if (!found) throw new Error(`no instance ${id}`);
  return found;
}

/** Waits until `check` holds for the current values, and returns them. */
export function valuesWhen(
  server: TestServer,
  check: (values: Map<string, unknown>) => boolean,
  what: string,
): Promise<Map<string, unknown>> {
  return eventually(async () => {
    const values = await valuesOf(server);
    return check(values) ? values : undefined;
  }, what);
}

/** Waits until `check` holds for the instance's status, and returns it. */
export function instanceWhen(
  server: TestServer,
  id: string,
  check: (instance: InstanceState) => boolean,
  what: string,
): Promise<InstanceState> {
  return eventually(async () => {
    const instance = await instanceOf(server, id);
    return check(instance) ? instance : undefined;
  }, what);
}

/**
 * A device gone silent: waits until the inverter's PV power and the battery's SOC read null,
 * then until instance `id` shows a device unavailable, its error and the inverter's reason
 * saying that unit `unit` does not answer; returns the values shown then.
 */
export async function assertSilentUnit(server: TestServer, id: string, unit: number): Promise<Map<string, unknown>> {
  await valuesWhen(
    server,
    (v) => v.get('inverter_1/pv_power') === null && v.get('battery_1/state_of_charge') === null,
    'the silent device to read null',
  );
  const silent = await instanceWhen(server, id, (i) => i.device_status.some((d) => !d.available), 'unavailable');
  assert.match(silent.last_error ?? '', new RegExp(`inverter_1, battery_1: no answer from unit ${unit}`));
  assert.match(
    silent.device_status.find((d) => d.id === 'inverter_1')?.reason ?? '',
    new RegExp(`no answer from unit ${unit}`),
  );
  return valuesWhen(server, () => true, 'values');
}

/** Waits until instance `id` is running again with every device available. */
export function runningAgain(server: TestServer, id: string): Promise<InstanceState> {
  return instanceWhen(server, id, (i) => i.device_status.every((d) => d.available) && i.state === 'running', 'back');
}

/**
 * Has `emulator` corrupt every reply (until the caller sets `corruptNext(0)`), and waits until
 * instance `id` reports a malformed reply for its first device: returns that status.
 */
export function malformedWhileCorrupt(
  server: TestServer,
  id: string,
  emulator: Pick<RunningEmulator, 'corruptNext'>,
): Promise<InstanceState> {
  emulator.corruptNext(1_000_000);
  return instanceWhen(
    server,
    id,
    (i) => /malformed/.test(i.device_status[0]?.reason ?? ''),
    'a malformed-reply reason',
  );
}

/** POST /api/v1/metrics: the HTTP status and the answer's message. */
export async function write(
  server: TestServer,
  topic: string,
  value: string,
): Promise<{ status: number; body: string }> {
  const response = await server.api('/api/v1/metrics', jsonBody({ topic, value }));
  return { status: response.status, body: await response.text() };
}
