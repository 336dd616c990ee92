import type { Operations } from '../operation.js';
import { energyQuery } from './route.js';
import { energyResponse } from '../../contract/energy.js';

export const energyOperations: Operations = {
  'GET /api/v1/energy': {
    summary: 'Energy (kWh) and money per calendar hour, day, month or year of [from, to), in the zone in force at each',
    description:
      "Read from the stored `total/*_energy` counters with the resets that happened; each bucket keeps the zone in force at its start (from the settings change log), so a change of the site's time zone or energy reset period never changes a past figure.",
    query: energyQuery,
    responses: { 200: energyResponse },
  },
};
