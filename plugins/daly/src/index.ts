/**
 * The Daly smart BMS driver: asks the BMS for its state of charge, cell voltage and
 * temperature ranges, MOSFET state and status (commands 90..94) over its UART / RS485 port
 * (a USB adapter, or a TCP serial bridge), and publishes one battery.
 */
import { batteryMetrics, definePlugin, temperatureMetric, z } from '@heliograph/plugins-sdk';
import {
  openStreamLink,
  pollingFields,
  pollStreamDevice,
  streamConnectionSchema,
} from '@heliograph/plugins-sdk/connections';
import { DalyCommand, dalyFrame, dalyFrameLength, dalyValues, parseDalyFrame } from './protocol.js';

/**
 * plugins.json `config` of a daly instance.
 *
 * @example
 * { "connection": { "type": "serial", "path": "/dev/ttyUSB0", "baudRate": 9600 }, "port": "rs485", "currentSign": "normal" }
 */
const configSchema = z.strictObject({
  connection: streamConnectionSchema,
  ...pollingFields,
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
      metrics: [
        batteryMetrics.voltage,
        batteryMetrics.current,
        batteryMetrics.power,
        batteryMetrics.state_of_charge,
        batteryMetrics.temperature,
        batteryMetrics.cell_voltage_min,
        batteryMetrics.cell_voltage_max,
        batteryMetrics.remaining_capacity,
        batteryMetrics.cycles,
        temperatureMetric('cell_temperature_min', 'Lowest cell temperature'),
        temperatureMetric('cell_temperature_max', 'Highest cell temperature'),
      ],
      identity: { manufacturer: 'Daly', model: 'Smart BMS' },
    });

    const ask = async (command: number, signal: AbortSignal): Promise<Buffer> => {
      const reply = await link.request(dalyFrame(address, command), {
        complete: dalyFrameLength,
        check: (frame) => {
          const parsed = parseDalyFrame(frame);
          if (!parsed) return 'bad checksum';
          return parsed.command === command || `reply to command ${parsed.command.toString(16)}`;
        },
        resendOnBadFrame: 1,
        timeoutMs: config.timeoutMs,
        signal,
      });
      return parseDalyFrame(reply)!.data;
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
