import { secret, z } from '@heliograph/plugins-sdk';

export const configSchema = z.object({
  target: z
    .enum(['prometheus-remote-write', 'influx-line'])
    .describe(
      'prometheus-remote-write: Prometheus, VictoriaMetrics (/api/v1/write), Mimir, Thanos; influx-line: InfluxDB or VictoriaMetrics (/write).',
    )
    .meta({ title: 'Protocol' }),
  url: z
    .url({ protocol: /^https?$/ })
    .describe('Where to send: http://victoria:8428/api/v1/write, or http://influx:8086/write?db=solar.')
    .meta({ title: 'URL' }),
  token: secret(z.string().min(1))
    .optional()
    .describe('Sent as "Authorization: Bearer <token>".')
    .meta({ title: 'Token' }),
  username: z
    .string()
    .min(1)
    .optional()
    .describe('For basic authentication, with the password.')
    .meta({ title: 'User name' }),
  password: secret(z.string().min(1))
    .optional()
    .describe('For basic authentication, with the user name.')
    .meta({ title: 'Password' }),
  batchSize: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(5000)
    .describe('Readings sent in one request at most.')
    .meta({ title: 'Batch size' }),
  flushIntervalMs: z
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(10_000)
    .describe('How often the queue is sent.')
    .meta({ title: 'Send every (ms)' }),
});

export type MirrorConfig = z.output<typeof configSchema>;
