/*
 * The `connection` object of a driver's config, and the key under which one physical link
 * (a TCP host:port or a serial device) is shared by every user in the process.
 */
import { z } from 'zod';
import { batteryConfigSchema } from '../battery-control.js';

const host = z
  .string()
  .min(1, 'a host name or IP address')
  .describe('Host name or IP address of the device, gateway or serial bridge.')
  .meta({ title: 'Host' });
const port = z.number().int().min(1).max(65535).describe('TCP port.').meta({ title: 'Port' });

const tcp = z
  .strictObject({
    type: z.literal('tcp').describe('Raw TCP: Modbus TCP, or a TCP-to-serial bridge.').meta({ title: 'Type' }),
    host,
    port,
  })
  .meta({ title: 'TCP' });
const serial = z
  .strictObject({
    type: z.literal('serial').describe('A local serial port (RS485 or RS232 adapter).').meta({ title: 'Type' }),
    path: z
      .string()
      .min(1, 'a serial device such as /dev/ttyUSB0')
      .describe('The serial device, e.g. /dev/ttyUSB0.')
      .meta({ title: 'Serial device' }),
    baudRate: z.number().int().positive().describe('Line speed, as set on the device.').meta({ title: 'Baud rate' }),
    dataBits: z
      .union([z.literal(5), z.literal(6), z.literal(7), z.literal(8)])
      .default(8)
      .describe('Data bits per character.')
      .meta({ title: 'Data bits' }),
    parity: z.enum(['none', 'even', 'odd']).default('none').describe('Parity bit.').meta({ title: 'Parity' }),
    stopBits: z
      .union([z.literal(1), z.literal(2)])
      .default(1)
      .describe('Stop bits.')
      .meta({ title: 'Stop bits' }),
  })
  .meta({ title: 'Serial port' });
const rtuOverTcp = z
  .strictObject({
    type: z
      .literal('rtu-over-tcp')
      .describe('Modbus RTU frames (with CRC) through an RS485-to-TCP gateway.')
      .meta({ title: 'Type' }),
    host,
    port,
  })
  .meta({ title: 'RTU over TCP' });
const solarman = z
  .strictObject({
    type: z.literal('solarman').describe('A Solarman V5 data logger (Deye, Sunsynk).').meta({ title: 'Type' }),
    host,
    port: port.default(8899),
    loggerSerial: z
      .number()
      .int()
      .min(0)
      .max(0xffffffff)
      .describe('The logger serial number printed on the stick.')
      .meta({ title: 'Logger serial' }),
  })
  .meta({ title: 'Solarman logger' });

const rtuOverUdp = z
  .strictObject({
    type: z
      .literal('rtu-over-udp')
      .describe('Modbus RTU frames (with CRC) in UDP datagrams (GoodWe ET/EH on 8899, UDP gateways).')
      .meta({ title: 'Type' }),
    host,
    port: port.default(8899).describe('UDP port.'),
    replyPrefix: z
      .enum(['none', 'aa55'])
      .default('none')
      .describe('GoodWe inverters put AA 55 before each reply frame.')
      .meta({ title: 'Reply prefix' }),
  })
  .meta({ title: 'RTU over UDP' });

const connectionHelp =
  'How to reach the device: tcp, serial, rtu-over-tcp (an RS485 gateway), solarman (a data logger) or rtu-over-udp.';

/**
 * How to reach a device, as written in a driver's instance config. Strict: unknown keys are
 * rejected.
 * - `tcp`: raw TCP (Modbus TCP, or a TCP-to-serial bridge for ASCII protocols);
 * - `serial`: a local serial port (RS485/RS232 adapter);
 * - `rtu-over-tcp`: Modbus RTU frames (with CRC) over a TCP gateway;
 * - `solarman`: a Solarman V5 data logger (Deye, Sunsynk) on port 8899.
 *
 * @example
 * const configSchema = z.strictObject({ connection: connectionSchema, unitId: z.number().int().default(1) });
 * connectionSchema.parse({ type: 'solarman', host: '192.168.1.40', loggerSerial: 2712345678 });
 * // { type: 'solarman', host: '192.168.1.40', port: 8899, loggerSerial: 2712345678 }
 */
export const connectionSchema = z
  .discriminatedUnion('type', [tcp, serial, rtuOverTcp, solarman, rtuOverUdp])
  .describe(connectionHelp)
  .meta({ title: 'Connection' });

/**
 * The connections of a byte or ASCII protocol (PI30, Pylontech RS485): a serial port, or raw
 * TCP to a serial bridge. A Modbus gateway or logger type is refused with the allowed ones.
 *
 * @example
 * const configSchema = z.strictObject({ connection: streamConnectionSchema, ...pollingFields });
 */
export const streamConnectionSchema = z
  .discriminatedUnion('type', [tcp, serial])
  .describe('How to reach the device: serial (an RS485/RS232 adapter) or tcp (a TCP-to-serial bridge).')
  .meta({ title: 'Connection' });

/** A parsed {@link streamConnectionSchema} value. */
export type StreamConnectionSpec = z.output<typeof streamConnectionSchema>;

/**
 * The polling fields every driver's config shares: how often to read the device and how long
 * one request may wait for its reply. Spread them into the driver's schema.
 *
 * @example
 * const configSchema = z.strictObject({ connection: connectionSchema, ...pollingFields });
 * // { connection, pollIntervalMs: 5000, timeoutMs: 1500 } when both are left out
 */
export const pollingFields = {
  pollIntervalMs: z
    .number()
    .int()
    .min(500)
    .default(5000)
    .describe('How often the device is read, in milliseconds.')
    .meta({ title: 'Poll interval (ms)' }),
  timeoutMs: z
    .number()
    .int()
    .min(100)
    .max(30_000)
    .default(1500)
    .describe('How long one request waits for the reply before the device counts as silent, in milliseconds.')
    .meta({ title: 'Reply timeout (ms)' }),
};

/**
 * The config fields of a driver of one device on a byte-protocol link (a BMS, an inverter's
 * serial port): `connection` ({@link streamConnectionSchema}) and the {@link pollingFields}.
 * Spread them into the driver's schema, before its own fields.
 *
 * @example
 * const configSchema = z.strictObject({ ...streamDeviceFields, port: z.enum(['rs485', 'uart']).default('rs485') });
 */
export const streamDeviceFields = {
  connection: streamConnectionSchema,
  ...pollingFields,
};

/**
 * The config fields of an inverter driver on one Modbus unit: `connection`
 * ({@link connectionSchema}), the {@link pollingFields}, and `battery` (the battery's limits,
 * {@link batteryConfigSchema}), whose presence turns battery control on. Spread them into the
 * driver's schema, before its own fields.
 *
 * @example
 * const configSchema = z.strictObject({ ...inverterConfigFields, family: z.enum(['auto', 'sph']).default('auto') });
 */
export const inverterConfigFields = {
  connection: connectionSchema,
  ...pollingFields,
  battery: batteryConfigSchema.optional(),
};

/**
 * A parsed {@link connectionSchema} value.
 *
 * @example
 * const spec: ConnectionSpec = { type: 'tcp', host: '192.168.1.50', port: 502 };
 */
export type ConnectionSpec = z.output<typeof connectionSchema>;

/**
 * The spec as a caller may write it: defaults (serial framing, solarman port) may be left out.
 *
 * @example
 * const spec: ConnectionInput = { type: 'serial', path: '/dev/ttyUSB0', baudRate: 9600 };
 */
export type ConnectionInput = z.input<typeof connectionSchema>;

/** Where the bytes go: a TCP endpoint or a serial device, whatever is spoken over it. */
export type TransportSpec =
  | { type: 'tcp'; host: string; port: number }
  | { type: 'udp'; host: string; port: number }
  | Extract<ConnectionSpec, { type: 'serial' }>;

/** The transport under a connection: rtu-over-tcp and solarman are TCP links. */
export function transportOf(spec: ConnectionSpec): TransportSpec {
  if (spec.type === 'serial') return spec;
  if (spec.type === 'rtu-over-udp') return { type: 'udp', host: spec.host, port: spec.port };
  return { type: 'tcp', host: spec.host, port: spec.port };
}

/** The key under which a transport is shared: `tcp:host:port` or `serial:/dev/ttyUSB0`. */
export function transportKey(spec: TransportSpec): string {
  return spec.type === 'serial' ? `serial:${spec.path}` : `${spec.type}:${spec.host}:${spec.port}`;
}

/** How a transport reads in messages: `192.168.1.50:502` or `/dev/ttyUSB0`. */
export function describeTransport(spec: TransportSpec): string {
  if (spec.type === 'serial') return spec.path;
  return spec.type === 'udp' ? `udp ${spec.host}:${spec.port}` : `${spec.host}:${spec.port}`;
}
