/*
 * A Voltronic / Axpert inverter in this process: the PI30 emulator of a device served over TCP,
 * and the real server polling it with the voltronic driver, both on the test's clock. The
 * voltronic driver tests and the in-process fail-safe test start it alike.
 */
import type { Clock } from '@heliograph/core/clock';
import { startEmulatorServer, type RunningEmulator } from '@heliograph/plugins-sdk/emulator';
import { pi30Protocol, type VoltronicDevice } from '@heliograph/plugin-voltronic/emulator';
import type { TestServer } from '../helpers/server.js';
import { connectionTo, serveDriver } from './driver-api.js';

/**
 * `device` on its PI30 emulator, and the server on `clock` polling it every 500 ms (300 ms a
 * command) as instance `axpert` with one device, `inverter_1`, and the battery `battery`
 * describes. The emulator closes after the server.
 */
export async function servePi30(
  device: VoltronicDevice,
  clock: Clock,
  battery: Record<string, number>,
): Promise<{ server: TestServer; emulator: RunningEmulator }> {
  const emulator = await startEmulatorServer({ protocol: pi30Protocol(device) });
  const server = await serveDriver(emulator, {
    plugin: 'voltronic',
    id: 'axpert',
    devices: ['inverter_1'],
    connection: await connectionTo(emulator, 'tcp'),
    config: { pollIntervalMs: 500, timeoutMs: 300, battery },
    clock,
  });
  return { server, emulator };
}
