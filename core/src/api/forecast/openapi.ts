import type { Operations } from '../operation.js';
import { forecastQuery } from './route.js';
import { forecastResponse } from '../../contract/forecast.js';

export const forecastOperations: Operations = {
  'GET /api/v1/forecast': {
    summary:
      "One weather topic's stored forecast, or a plugin's plan series (planner_1/soc_planned), at 15-minute resolution",
    query: forecastQuery,
    responses: { 200: forecastResponse },
  },
};
