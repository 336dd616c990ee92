import { siteSettingsPatchSchema } from '../../config/site-settings.js';
import { fieldErrorResponse } from '../../contract/common-schemas.js';
import type { Operations } from '../operation.js';
import { siteConfigResponse, siteSettings } from '../../contract/config.js';

export const configOperations: Operations = {
  'GET /api/v1/config': {
    summary: 'The site settings (site, energy, prices) and their JSON Schema',
    responses: { 200: siteConfigResponse },
  },
  'PUT /api/v1/config': {
    summary: 'Change any subset of the site settings; applied without a restart',
    body: siteSettingsPatchSchema,
    responses: { 200: siteSettings, 400: fieldErrorResponse },
  },
};
