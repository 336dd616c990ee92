/**
 * The JK (Jikong) BMS driver: sends the "read all data" request (command 06) of the JK RS485
 * protocol over the BMS's RS485 / UART port (a USB adapter, or a TCP serial bridge) and
 * publishes one battery, with the identity the BMS reports.
 */
import {
  batteryMetrics,
  bmsPackMetrics,
  cellTemperatureMetrics,
  definePlugin,
  temperatureMetric,
  z,
} from '@heliograph/plugins-sdk';
import {
  openStreamLink,
  pollStreamDevice,
  requestCommandReply,
  streamDeviceFields,
} from '@heliograph/plugins-sdk/connections';
import { jkFields, jkFrameLength, jkIdentity, jkValues, parseJkFrame, READ_ALL, readAllRequest } from './protocol.js';

/**
 * plugins.json `config` of a jkbms instance.
 *
 * @example
 * { "connection": { "type": "serial", "path": "/dev/ttyUSB0", "baudRate": 115200 }, "currentEncoding": "auto" }
 */
const configSchema = z.strictObject({
  ...streamDeviceFields,
  currentEncoding: z
    .enum(['auto', 'sign-bit', 'offset'])
    .default('auto')
    .describe(
      'How the BMS encodes its current (field 0x84): auto follows the protocol version field 0xC0 of each reply; ' +
        'sign-bit (0xC0 = 01, most firmware) or offset (0xC0 = 00, 10000 − raw) force one.',
    )
    .meta({ title: 'Current encoding' }),
});

export default definePlugin({
  id: 'jkbms',
  configSchema,
  setup(ctx, config) {
    const device = ctx.devices[0]!.id;
    const link = openStreamLink(config.connection);
    ctx.topics.declare({
      device,
      pollIntervalMs: config.pollIntervalMs,
      metrics: [
        ...bmsPackMetrics,
        batteryMetrics.full_capacity,
        batteryMetrics.cycles,
        ...cellTemperatureMetrics,
        temperatureMetric('mos_temperature', 'MOSFET temperature'),
      ],
      identity: { manufacturer: 'JK BMS' },
    });
    let identified = '';

    return pollStreamDevice(ctx, {
      link,
      device,
      pollIntervalMs: config.pollIntervalMs,
      poll: async (signal) => {
        const reply = await requestCommandReply(link, {
          request: readAllRequest(),
          command: READ_ALL,
          complete: jkFrameLength,
          parse: parseJkFrame,
          timeoutMs: config.timeoutMs,
          signal,
        });
        const fields = jkFields(reply.info);
        const identity = jkIdentity(fields);
        if (JSON.stringify(identity) !== identified) {
          identified = JSON.stringify(identity);
          ctx.topics.identify({ device, identity });
        }
        ctx.topics.publish({ device, values: jkValues(fields, config.currentEncoding) });
      },
    });
  },
});
