import { secret, z } from '@heliograph/plugins-sdk';

/** One MQTT topic level: no wildcards, no empty levels. */
const topicPrefix = z
  .string()
  .trim()
  .regex(/^[^#+/]+(\/[^#+/]+)*$/, 'an MQTT topic without wildcards (+, #) or leading, trailing or double slashes');

const interval = z.number().int().min(0).max(3_600_000);

export const configSchema = z.object({
  url: z
    .string()
    .trim()
    .regex(/^(mqtts?|tcp|ssl|wss?):\/\/[^/]+/, 'a broker URL such as mqtt://192.168.1.10:1883 or mqtts://broker:8883')
    .describe('Broker address: mqtt://host:1883, or mqtts://host:8883 for TLS.')
    .meta({ title: 'Broker URL' }),
  username: z
    .string()
    .min(1)
    .optional()
    .describe('User name at the broker, if it asks for one.')
    .meta({ title: 'User name' }),
  password: secret(z.string().min(1))
    .optional()
    .describe('Password at the broker, if it asks for one.')
    .meta({ title: 'Password' }),
  prefix: topicPrefix
    .default('heliograph')
    .describe('Topics go under it: <prefix>/inverter_1/pv_power/state.')
    .meta({ title: 'Topic prefix' }),
  topics: z
    .array(z.string().min(1))
    .min(1)
    .default(['*'])
    .describe('Which topics to bridge, as globs (the WebSocket filter): * any run of characters, ? one.')
    .meta({ title: 'Topics' }),
  discovery: z
    .boolean()
    .default(true)
    .describe('Announce every topic to Home Assistant by MQTT discovery.')
    .meta({ title: 'Home Assistant discovery' }),
  discoveryPrefix: topicPrefix
    .default('homeassistant')
    .describe('Where Home Assistant listens for discovery configs (its MQTT integration setting).')
    .meta({ title: 'Discovery prefix' }),
  minIntervalMs: z
    .union([interval, z.record(z.string().min(1), interval)])
    .default(0)
    .describe(
      'Least time between two state messages of one topic: a number for every topic, or { "<topic>": ms, "*": ms } per topic.',
    )
    .meta({ title: 'Minimum interval (ms)' }),
  tls: z
    .object({
      ca: z
        .string()
        .min(1)
        .optional()
        .describe('CA certificate file (PEM) that signed the broker’s certificate.')
        .meta({ title: 'CA certificate file' }),
      cert: z
        .string()
        .min(1)
        .optional()
        .describe('Client certificate file (PEM), for brokers that ask for one.')
        .meta({ title: 'Client certificate file' }),
      // A path, not the key itself, but write-only all the same: it says where the secret lives.
      key: secret(z.string().min(1)).optional().describe('Client key file (PEM).').meta({ title: 'Client key file' }),
      rejectUnauthorized: z
        .boolean()
        .default(true)
        .describe('Refuse a broker whose certificate does not verify.')
        .meta({ title: 'Verify the broker' }),
    })
    .optional()
    .describe('For mqtts:// brokers: certificate files and whether to verify the broker.')
    .meta({ title: 'TLS' }),
});

export type MqttConfig = z.output<typeof configSchema>;

/** The minimum interval of a topic under the config's `minIntervalMs`. */
export function minIntervalOf(config: MqttConfig, topic: string): number {
  const { minIntervalMs } = config;
  if (typeof minIntervalMs === 'number') return minIntervalMs;
  return minIntervalMs[topic] ?? minIntervalMs['*'] ?? 0;
}
