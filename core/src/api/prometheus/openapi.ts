import type { Operations } from '../operation.js';
import { NO_QUERY } from '../query.js';

export const prometheusOperations: Operations = {
  'GET /metrics': {
    summary: 'Prometheus metrics (text exposition format): topics, kWh totals, plugin health, the process',
    description:
      'Needs scope read, unless the config key `prometheus.openScrape` is true. See docs/api.md, "Prometheus".',
    query: NO_QUERY,
    responses: {
      200: {
        contentType: 'text/plain; version=0.0.4; charset=utf-8',
        description: 'Prometheus text exposition format 0.0.4',
        schema: { type: 'string' },
      },
    },
  },
};
