/**
 * The Pylontech driver: the RS485 ASCII protocol over a serial port or a TCP serial bridge.
 * One `battery_N` device per pack, at the RS485 addresses in `addresses` (default 2, 3, ...
 * in device order); every `pollIntervalMs` each pack's analog values (CID2 0x42), and its
 * manufacturer info (CID2 0x51) and module serial number (CID2 0x93) once as its identity.
 */
import {
  ConfigError,
  batteryMetrics,
  definePlugin,
  DeviceRefusedError,
  NoAnswerError,
  z,
} from '@heliograph/plugins-sdk';
import { openStreamLink, streamDeviceFields } from '@heliograph/plugins-sdk/connections';
import { analogValues, manufacturerInfo, moduleSerial, packTemperatureMetrics } from './analog.js';
import { PylonClient } from './client.js';

const configSchema = z.strictObject({
  ...streamDeviceFields,
  addresses: z
    .array(z.number().int().min(0).max(255))
    .min(1)
    .optional()
    .describe("RS485 address of each pack, in the order of the instance's devices; default 2, 3, ...")
    .meta({ title: 'Pack addresses' }),
});

const ANALOG = 0x42;
const MANUFACTURER = 0x51;
const SERIAL_NUMBER = 0x93;
const hexByte = (n: number) => n.toString(16).toUpperCase().padStart(2, '0');

export default definePlugin({
  id: 'pylontech',
  configSchema,
  setup(ctx, config) {
    const { connection } = config;
    const addresses = config.addresses ?? ctx.devices.map((_, i) => 2 + i);
    if (addresses.length !== ctx.devices.length)
      throw new ConfigError(
        `addresses lists ${addresses.length} pack addresses for ${ctx.devices.length} devices: give one per battery device`,
      );
    const packs = ctx.devices.map((d, i) => ({ device: d.id, address: addresses[i]!, identified: false }));
    const link = openStreamLink(connection);
    const client = new PylonClient(link, config.timeoutMs);
    let badFrames = link.stats.badFrames;

    for (const pack of packs) {
      ctx.topics.declare({
        device: pack.device,
        pollIntervalMs: config.pollIntervalMs,
        metrics: [
          ...Object.values(batteryMetrics).filter((m) => m.name !== 'state_of_health'),
          ...packTemperatureMetrics,
        ],
      });
    }
    // The link may be shared with other instances: its listeners go when this one stops.
    const offDisconnect = link.on('disconnect', (reason) => {
      for (const pack of packs) ctx.topics.markUnavailable({ device: pack.device, reason });
      ctx.status.error({ message: `${packs.map((p) => p.device).join(', ')}: ${reason}` });
    });
    const offConnect = link.on('connect', () => ctx.status.ok());

    // The module SN (CID2 0x93, its INFO the pack's address as python-pylontech sends it); a
    // pack whose firmware does not know the command answers with a return code: no serial.
    const askSerial = async (address: number, signal: AbortSignal) => {
      try {
        return moduleSerial(await client.ask(address, SERIAL_NUMBER, hexByte(address), signal));
      } catch (error) {
        if (error instanceof DeviceRefusedError) return undefined;
        throw error;
      }
    };

    const pollPack = async (pack: (typeof packs)[number], signal: AbortSignal) => {
      if (!pack.identified) {
        const identity = manufacturerInfo(await client.ask(pack.address, MANUFACTURER, '', signal));
        const serial = await askSerial(pack.address, signal);
        ctx.topics.identify({ device: pack.device, identity: serial ? { ...identity, serial } : identity });
        pack.identified = true;
      }
      const values = analogValues(await client.ask(pack.address, ANALOG, hexByte(pack.address), signal));
      ctx.topics.publish({ device: pack.device, values });
    };

    ctx.scheduler.every({
      name: 'poll',
      intervalMs: config.pollIntervalMs,
      run: async ({ signal }) => {
        // Every pack is asked even when one fails; the job fails naming each one that did.
        const failures: string[] = [];
        for (const pack of packs) {
          try {
            await pollPack(pack, signal);
          } catch (error) {
            if (signal.aborted) throw error;
            const message = error instanceof Error ? error.message : String(error);
            if (error instanceof NoAnswerError) ctx.topics.markUnavailable({ device: pack.device, reason: message });
            failures.push(`${pack.device} (address ${pack.address}): ${message}`);
          }
        }
        if (link.stats.badFrames > badFrames) {
          ctx.log.warn(`skipped ${link.stats.badFrames - badFrames} replies with a wrong checksum or address`);
          badFrames = link.stats.badFrames;
        }
        if (failures.length > 0) throw new Error(failures.join('; '));
      },
    });

    return () => {
      offDisconnect();
      offConnect();
      link.release();
    };
  },
});
