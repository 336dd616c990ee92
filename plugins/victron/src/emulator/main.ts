/**
 * The Victron GX emulator, as `heliograph emulate victron` starts it: Modbus TCP with the
 * system on unit 100, a battery monitor on 225 and a VE.Bus inverter/charger on 227; other
 * unit ids answer exception 0x0B as the GX does.
 */
import {
  pickTransport,
  startModbusEmulator,
  type EmulatorOptions,
  type RunningEmulator,
} from '@heliograph/plugins-sdk/emulator';
import { victronUnits, VictronSite } from './device.js';

export { victronUnits, VictronSite } from './device.js';

export const transports = ['tcp'] as const;

/**
 * Starts an emulated GX; `site` gives tests its state and settings.
 *
 * @example
 * const emulator = await startEmulator({ port: 0 });
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator & { site: VictronSite }> {
  const site = new VictronSite({ now: options.now });
  const running = await startModbusEmulator({
    transport: pickTransport(options.transport, transports),
    units: victronUnits(site),
    host: options.host,
    port: options.port,
  });
  return Object.assign(running, { site });
}
