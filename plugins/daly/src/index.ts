/**
 * The Daly smart BMS driver: asks the BMS for its state of charge, cell voltage and
 * temperature ranges, MOSFET state and status (commands 90..94) over its UART / RS485 port
 * (a USB adapter, or a TCP serial bridge), and publishes one battery.
 */
import { batteryMetrics, bmsPackMetrics, cellTemperatureMetrics, definePlugin, z } from '@heliograph/plugins-sdk';
import {
  openStreamLink,
  pollStreamDevice,
  requestCommandReply,
  streamDeviceFields,
} from '@heliograph/plugins-sdk/connections';
import { DalyCommand, dalyFrame, dalyFrameLength, dalyValues, parseDalyFrame } from './protocol.js';

/**
 * plugins.json `config` of a daly instance.
 *
 * @example
 * { "connection": { "type": "serial", "path": "/dev/ttyUSB0", "baudRate": 9600 }, "port": "rs485", "currentSign": "normal" }
 */
const configSchema = z.strictObject({
  ...streamDeviceFields,
  port: z
    .enum(['rs485', 'uart'])
    .default('rs485')
    .describe('Which BMS port the adapter is on: rs485 (host address 40) or uart (80).')
    .meta({ title: 'BMS port' }),
  currentSign: z
    .enum(['normal', 'inverted'])
    .default('normal')
    .describe(
      'How the firmware signs the current: normal (charging negative on the wire, as the protocol has it) or ' +
        'inverted (firmware that sends charging positive: set it when the battery reads discharging while it charges).',
    )
    .meta({ title: 'Current sign' }),
});

export default definePlugin({
  id: 'daly',
  configSchema,
  setup(ctx, config) {
    const device = ctx.devices[0]!.id;
    const link = openStreamLink(config.connection);
    const address = config.port === 'rs485' ? 0x40 : 0x80;
    ctx.topics.declare({
      device,
      pollIntervalMs: config.pollIntervalMs,
      metrics: [...bmsPackMetrics, batteryMetrics.cycles, ...cellTemperatureMetrics],
      identity: { manufacturer: 'Daly', model: 'Smart BMS' },
    });

    const ask = async (command: number, signal: AbortSignal): Promise<Buffer> => {
      const reply = await requestCommandReply(link, {
        request: dalyFrame(address, command),
        command,
        complete: dalyFrameLength,
        parse: parseDalyFrame,
        timeoutMs: config.timeoutMs,
        signal,
      });
      return reply.data;
    };

    return pollStreamDevice(ctx, {
      link,
      device,
      pollIntervalMs: config.pollIntervalMs,
      poll: async (signal) => {
        const replies: Record<number, Buffer> = {};
        for (const command of Object.values(DalyCommand)) replies[command] = await ask(command, signal);
        ctx.topics.publish({ device, values: dalyValues(replies, config.currentSign) });
      },
    });
  },
});
