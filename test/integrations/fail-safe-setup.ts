// What the fail-safe tests share (issue 43: never leave a battery forced). The real server
// runs as a child process (`heliograph serve`), so it can be stopped with SIGTERM or killed
// with SIGKILL; the emulated devices run in the test process and outlive it, and the tests
// read what they do from their registers, never from the API. Each bounded device gets the
// same three tests: the link going silent, kill -9 and SIGTERM, each while it grid charges.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BATTERY_LEASE_MS } from '@heliograph/plugins-sdk';
import { startModbusEmulator, type ModbusDevice, type RunningEmulator } from '@heliograph/plugins-sdk/emulator';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { pollUntil, within } from '../helpers/deadline.js';
import { jsonBody, tempDir } from '../helpers/server.js';

export const MINUTE = 60_000;
/** A minute past the lease on the device (BATTERY_LEASE_MS, 30 min): the bound of device time. */
export const PAST_LEASE_MS = BATTERY_LEASE_MS + MINUTE;
/** `heliograph serve` exits within 20 s of a SIGTERM (core/src/cli/serve.ts); a little more for a busy machine. */
const SIGTERM_EXIT_MS = 25_000;

/**
 * A night on an emulator's true clock (no sun: only the battery and the grid move), going on at
 * the pace of the real clock, which the server in its child process runs on.
 *
 * @example
 * const device = new DeyeDevice({ now: nightFrom(new Date(2026, 11, 21, 21, 0)) });
 */
export function nightFrom(start: Date): () => Date {
  const startedAt = Date.now();
  return () => new Date(start.getTime() + Date.now() - startedAt);
}

/** A plugins.json entry: a driver polling an emulator in this process. */
export interface DevicePlugin {
  id: string;
  plugin: string;
  devices: string[];
  config: Record<string, unknown>;
}

/** The plugins.json entry of driver `plugin` (its instance id too) on `devices`: an inverter and its battery unless given. */
export function driverEntry(
  plugin: string,
  config: Record<string, unknown>,
  devices = ['inverter_1', 'battery_1'],
): DevicePlugin {
  return { id: plugin, plugin, devices, config };
}

/**
 * The server with one device plugin, started at the first `running()`, started again on the
 * same data (and port) after a kill or a stop; `end()` (in an `after` hook) kills it. `dir`
 * holds its data: made where an `after` belongs to the file or suite, as `tempDir()` removes
 * it after the test or suite it is called in.
 */
export class ServerRuns {
  private server: ChildServer | null = null;

  constructor(
    private readonly plugin: DevicePlugin,
    private readonly dir: string,
  ) {}

  /** Kills the server if it still runs. */
  end(): void {
    const child = this.server?.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  /** The running server: the one from before, or a new start (on the same data after a kill or stop). */
  async running(): Promise<ChildServer> {
    const child = this.server?.child;
    if (this.server && child!.exitCode === null && child!.signalCode === null) return this.server;
    if (this.server) await this.server.restart();
    else
      this.server = await startChildServer({
        plugins: [this.plugin],
        bundled: [this.plugin.plugin],
        env: { HELIOGRAPH_MDNS: '0' },
        dir: this.dir,
      });
    return this.server;
  }

  /** SIGTERM; resolves with the exit code once the process ended. */
  async sigterm(): Promise<number | null> {
    const server = this.server!;
    server.child.kill('SIGTERM');
    return within(server.exited, 'exit of `heliograph serve` after SIGTERM', SIGTERM_EXIT_MS);
  }

  /** SIGKILL: nothing of the server runs another line. */
  async sigkill(): Promise<void> {
    const server = this.server!;
    server.child.kill('SIGKILL');
    await within(server.exited, 'exit of `heliograph serve` after SIGKILL');
  }
}

/** Current values by topic, from GET /api/v1/metrics. */
export async function valuesOf(server: ChildServer): Promise<Map<string, unknown>> {
  const metrics = (await (await server.api('/api/v1/metrics')).json()) as Array<{ topic: string; value: unknown }>;
  return new Map(metrics.map((m) => [m.topic, m.value]));
}

/** Waits until `check` holds for the current values (as the API shows them), and returns them. */
export async function valuesWhen(
  server: ChildServer,
  check: (values: Map<string, unknown>) => boolean,
  what: string,
): Promise<Map<string, unknown>> {
  let values = new Map<string, unknown>();
  await pollUntil(
    async () => {
      values = await valuesOf(server);
      return { done: check(values), seen: Object.fromEntries(values) };
    },
    what,
    { ms: 30_000 },
  );
  return values;
}

/** Writes one value through POST /api/v1/metrics (the API's write path); it must be accepted. */
export async function write(server: ChildServer, topic: string, value: string): Promise<void> {
  const answer = await server.api('/api/v1/metrics', jsonBody({ topic, value }));
  assert.equal(answer.status, 200, `${topic} = ${value}: ${await answer.text()}`);
}

/** A Charge as the API takes it: the power, the target, then the mode. */
export async function charge(server: ChildServer, device: string, powerW: number, targetSoc: number): Promise<void> {
  await write(server, `${device}/battery_control_power`, String(powerW));
  await write(server, `${device}/battery_control_target_soc`, String(targetSoc));
  await write(server, `${device}/battery_control_mode`, 'Charge');
}

/** GET /api/v1/audit: the audited writes of `topic`, newest first. */
export async function audited(
  server: ChildServer,
  topic: string,
): Promise<Array<{ new_value: string; result: string; via: string }>> {
  const entries = (await (await server.api('/api/v1/audit?limit=1000')).json()) as Array<{
    topic: string;
    new_value: string;
    result: string;
    via: string;
  }>;
  return entries.filter((e) => e.topic === topic);
}

/**
 * What an emulated device does now, read from its registers: grid charging, its normal self,
 * selling the battery to the grid (a Deye's timer in Selling first), or something else forced.
 */
export interface DeviceReading {
  mode: 'charge' | 'normal' | 'selling' | 'other';
  /** The registers (and the flows they make) it was told from, for the failure message. */
  seen: unknown;
}

/** A device whose forced commands are bounded on the device itself (Deye's program, SunSpec's revert timeout). */
export interface LeasedDevice {
  /** The driver's plugins.json entry, polling `emulator`. */
  plugin: DevicePlugin;
  /** The device battery control is declared on. */
  device: string;
  emulator: RunningEmulator;
  /** The Charge the tests ask for. */
  powerW: number;
  targetSoc: number;
  /** How far the device's clock is ahead of its true time, ms: tests move it to run a lease out. */
  clockOffsetMs: number;
  /** What the device does now, from its registers. */
  read(): DeviceReading;
}

/** A device polled over Modbus: its driver, its emulator's units and what the tests read and move of it. */
export interface ModbusLeasedDevice {
  /** The driver's plugins.json entry; its config without `connection` (the emulator's) and `pollIntervalMs` (500). */
  plugin: DevicePlugin;
  transport: 'tcp' | 'rtu-over-tcp';
  units: Map<number, ModbusDevice>;
  /** The emulated object whose own clock the tests move (`clockOffsetMs`, ms ahead of its true time). */
  clocked: { clockOffsetMs: number };
  powerW: number;
  targetSoc: number;
  read(): DeviceReading;
}

/**
 * The Modbus emulator of `definition` started, and the {@link LeasedDevice} the fail-safe tests
 * take: battery control on `inverter_1`, the driver polling every 500 ms.
 */
export async function onModbusEmulator(definition: ModbusLeasedDevice): Promise<LeasedDevice> {
  const { plugin, clocked } = definition;
  const emulator = await startModbusEmulator({ transport: definition.transport, units: definition.units });
  return {
    plugin: {
      ...plugin,
      config: {
        connection: { type: definition.transport, host: emulator.host, port: emulator.port },
        pollIntervalMs: 500,
        ...plugin.config,
      },
    },
    device: 'inverter_1',
    emulator,
    powerW: definition.powerW,
    targetSoc: definition.targetSoc,
    get clockOffsetMs() {
      return clocked.clockOffsetMs;
    },
    set clockOffsetMs(ms: number) {
      clocked.clockOffsetMs = ms;
    },
    read: () => definition.read(),
  };
}

/** A winter evening on a device's clock: no sun, the night load; the forced windows stay before midnight. */
export const WINTER_EVENING = new Date(2026, 11, 21, 21, 0);

/** One Modbus unit at SOC 50 on a night from {@link WINTER_EVENING}, and the Charge the tests ask of it, to 90 %. */
export interface ModbusUnitAtNight<D extends ModbusDevice & { clockOffsetMs: number }> {
  plugin: DevicePlugin;
  transport: ModbusLeasedDevice['transport'];
  /** Its unit id on the emulator. */
  unit: number;
  make: (options: { now: () => Date; soc: number }) => D;
  powerW: number;
  /** What the unit does now, from its registers, the Charge's target given. */
  read: (device: D, targetSoc: number) => DeviceReading;
}

/** The unit of `definition` made and on its Modbus emulator: {@link onModbusEmulator}. */
export function onModbusUnitAtNight<D extends ModbusDevice & { clockOffsetMs: number }>(
  definition: ModbusUnitAtNight<D>,
): Promise<LeasedDevice> {
  const device = definition.make({ now: nightFrom(WINTER_EVENING), soc: 50 });
  const targetSoc = 90;
  return onModbusEmulator({
    plugin: definition.plugin,
    transport: definition.transport,
    units: new Map([[definition.unit, device]]),
    clocked: device,
    powerW: definition.powerW,
    targetSoc,
    read: () => definition.read(device, targetSoc),
  });
}

/** Waits until what `read` reads from the device is `mode`. */
export function deviceShows(read: () => DeviceReading, mode: DeviceReading['mode'], what: string): Promise<void> {
  return pollUntil(
    () => {
      const reading = read();
      return Promise.resolve({ done: reading.mode === mode, seen: reading.seen });
    },
    what,
    { ms: 20_000, everyMs: 50 },
  );
}

/** Asserts what `read` reads from the device now. */
export function assertDevice(read: () => DeviceReading, mode: DeviceReading['mode'], message: string): void {
  const reading = read();
  assert.equal(reading.mode, mode, `${message}; the device shows ${JSON.stringify(reading.seen)}`);
}

/**
 * The three fail-safe tests of a device that bounds each forced command itself: with the link
 * silent, after kill -9 and after SIGTERM while it grid charges, the device is back to normal
 * within the lease (at most 30 min of its own time), as its registers show. The tests share one
 * server (started again on the same data after the kill) and run in order.
 */
export function leaseOnDeviceTests(
  name: string,
  make: () => Promise<LeasedDevice>,
  /**
   * What the device does once the lease ran out on it, and how a test's name says it: normal,
   * unless its driver documents otherwise.
   */
  afterLease: { mode: DeviceReading['mode']; says: string } = { mode: 'normal', says: 'normal' },
): void {
  describe(`${name}: never left forced`, () => {
    let rig: { device: LeasedDevice; runs: ServerRuns } | undefined;
    const started = () => rig ?? assert.fail(`no ${name} emulator: its before() hook failed`);
    // Hooks of the suite, run in this order at its end (an `after` called inside `before` or a
    // test would run as soon as that ends).
    after(async () => {
      rig?.runs.end();
      await rig?.device.emulator.close();
    });
    const dir = tempDir();
    before(async () => {
      const device = await make();
      rig = { device, runs: new ServerRuns(device.plugin, dir) };
    });

    /** Charge through the API; resolves once the device's registers show it, with the device's clock offset then. */
    const charging = async (server: ChildServer, device: LeasedDevice): Promise<number> => {
      await valuesWhen(
        server,
        (v) => v.get(`${device.device}/battery_control_lease`) === BATTERY_LEASE_MS / 1000,
        `${device.device}/battery_control_lease of ${BATTERY_LEASE_MS / 1000} s (bounded on the device)`,
      );
      await charge(server, device.device, device.powerW, device.targetSoc);
      await deviceShows(() => device.read(), 'charge', `${name} grid charging in its registers after the Charge`);
      return device.clockOffsetMs;
    };

    test(`${name}: the link silent while Charge, the device is ${afterLease.says} by its own clock within the lease`, async () => {
      const { device, runs } = started();
      const server = await runs.running();
      const at = await charging(server, device);
      device.emulator.silence(true);
      try {
        // The server goes on polling into the silence: no renewal, no Normal can reach the device.
        await within(device.emulator.nextRequest(), `a request of the driver reaching the silent ${name} emulator`);
        device.clockOffsetMs = at + 15 * MINUTE;
        assertDevice(() => device.read(), 'charge', 'halfway through the lease, still grid charging');
        device.clockOffsetMs = at + PAST_LEASE_MS;
        assertDevice(() => device.read(), afterLease.mode, `${PAST_LEASE_MS / MINUTE} min on by its clock`);
        assert.equal(server.child.exitCode, null, 'the server ran all along');
      } finally {
        device.emulator.silence(false);
      }
    });

    test(`${name}: kill -9 while Charge, the device is ${afterLease.says} by its own clock within the lease`, async () => {
      const { device, runs } = started();
      const at = await charging(await runs.running(), device);
      await runs.sigkill();
      assertDevice(() => device.read(), 'charge', 'nobody ended the Charge: still grid charging');
      device.clockOffsetMs = at + 15 * MINUTE;
      assertDevice(() => device.read(), 'charge', 'halfway through the lease, still grid charging');
      device.clockOffsetMs = at + PAST_LEASE_MS;
      assertDevice(() => device.read(), afterLease.mode, `${PAST_LEASE_MS / MINUTE} min on by its clock`);
    });

    test(`${name}: SIGTERM while Charge, the stop writes Normal to the device before it exits`, async () => {
      const { device, runs } = started();
      // Started again on the data of the killed one.
      await charging(await runs.running(), device);
      assert.equal(await runs.sigterm(), 0, 'exit code after SIGTERM');
      assertDevice(() => device.read(), 'normal', 'normal at once after the stop, with no time passed on the device');
    });
  });
}
