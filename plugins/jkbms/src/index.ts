/**
 * The JK (Jikong) BMS driver: sends the "read all data" request (command 06) of the JK RS485
 * protocol over the BMS's RS485 / UART port (a USB adapter, or a TCP serial bridge) and
 * publishes one battery, with the identity the BMS reports.
 */
import { batteryMetrics, definePlugin, temperatureMetric, z } from '@heliograph/plugins-sdk';
import {
  openStreamLink,
  pollingFields,
  pollStreamDevice,
  streamConnectionSchema,
} from '@heliograph/plugins-sdk/connections';
import { jkFields, jkFrameLength, jkIdentity, jkValues, parseJkFrame, READ_ALL, readAllRequest } from './protocol.js';

/**
 * plugins.json `config` of a jkbms instance.
 *
 * @example
 * { "connection": { "type": "serial", "path": "/dev/ttyUSB0", "baudRate": 115200 }, "currentEncoding": "auto" }
 */
const configSchema = z.strictObject({
  connection: streamConnectionSchema,
  ...pollingFields,
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
        batteryMetrics.voltage,
        batteryMetrics.current,
        batteryMetrics.power,
        batteryMetrics.state_of_charge,
        batteryMetrics.temperature,
        batteryMetrics.cell_voltage_min,
        batteryMetrics.cell_voltage_max,
        batteryMetrics.remaining_capacity,
        batteryMetrics.full_capacity,
        batteryMetrics.cycles,
        temperatureMetric('cell_temperature_min', 'Lowest cell temperature'),
        temperatureMetric('cell_temperature_max', 'Highest cell temperature'),
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
        const reply = await link.request(readAllRequest(), {
          complete: jkFrameLength,
          check: (frame) => {
            const parsed = parseJkFrame(frame);
            if (!parsed) return 'bad checksum';
            return parsed.command === READ_ALL || `reply to command ${parsed.command.toString(16)}`;
          },
          resendOnBadFrame: 1,
          timeoutMs: config.timeoutMs,
          signal,
        });
        const fields = jkFields(parseJkFrame(reply)!.info);
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
