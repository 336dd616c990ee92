/*
 * The `connection` object of a driver's config, and the key under which one physical link
 * (a TCP host:port or a serial device) is shared by every user in the process.
 */
import { z } from 'zod';

const host = z.string().min(1, 'a host name or IP address');
const port = z.number().int().min(1).max(65535);

/**
 * How to reach a device, as written in a driver's instance config. Strict: unknown keys are
 * rejected.
 * - `tcp`: raw TCP (Modbus TCP, or a TCP-to-serial bridge for ASCII protocols);
 * - `serial`: a local serial port (RS485/RS232 adapter);
 * - `rtu-over-tcp`: Modbus RTU frames (with CRC) over a TCP gateway;
 * - `solarman`: a Solarman V5 data logger (Deye, Sunsynk) on port 8899.
 *
 * @example
 * const configSchema = z.object({ connection: connectionSchema, unitId: z.number().int().default(1) });
 * connectionSchema.parse({ type: 'solarman', host: '192.168.1.40', loggerSerial: 2712345678 });
 * // { type: 'solarman', host: '192.168.1.40', port: 8899, loggerSerial: 2712345678 }
 */
export const connectionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('tcp'), host, port }),
  z.strictObject({
    type: z.literal('serial'),
    path: z.string().min(1, 'a serial device such as /dev/ttyUSB0'),
    baudRate: z.number().int().positive(),
    dataBits: z.union([z.literal(5), z.literal(6), z.literal(7), z.literal(8)]).default(8),
    parity: z.enum(['none', 'even', 'odd']).default('none'),
    stopBits: z.union([z.literal(1), z.literal(2)]).default(1),
  }),
  z.strictObject({ type: z.literal('rtu-over-tcp'), host, port }),
  z.strictObject({
    type: z.literal('solarman'),
    host,
    port: port.default(8899),
    loggerSerial: z.number().int().min(0).max(0xffffffff),
  }),
]);

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
export type TransportSpec = { type: 'tcp'; host: string; port: number } | Extract<ConnectionSpec, { type: 'serial' }>;

/** The transport under a connection: rtu-over-tcp and solarman are TCP links. */
export function transportOf(spec: ConnectionSpec): TransportSpec {
  if (spec.type === 'serial') return spec;
  return { type: 'tcp', host: spec.host, port: spec.port };
}

/** The key under which a transport is shared: `tcp:host:port` or `serial:/dev/ttyUSB0`. */
export function transportKey(spec: TransportSpec): string {
  return spec.type === 'serial' ? `serial:${spec.path}` : `tcp:${spec.host}:${spec.port}`;
}

/** How a transport reads in messages: `192.168.1.50:502` or `/dev/ttyUSB0`. */
export function describeTransport(spec: TransportSpec): string {
  return spec.type === 'serial' ? spec.path : `${spec.host}:${spec.port}`;
}
