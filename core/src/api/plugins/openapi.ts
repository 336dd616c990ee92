import { fieldErrorResponse } from '../../contract/common-schemas.js';
import type { Operations } from '../operation.js';
import { NO_QUERY } from '../query.js';
import { configBody } from './config.js';
import { grantsBody, newInstanceBody, patchBody } from './instances.js';
import {
  installedPluginsResponse,
  pluginConfigResponse,
  pluginConfigValues,
  pluginsResponse,
  pluginStatus,
} from '../../contract/plugins.js';

export const pluginsOperations: Operations = {
  'GET /api/v1/plugins': {
    summary: 'Every plugin instance with its state, then history’s own status',
    query: NO_QUERY,
    responses: { 200: pluginsResponse },
  },
  'GET /api/v1/plugins/installed': {
    summary: 'Every installed plugin that can be added, with its config schema',
    responses: { 200: installedPluginsResponse },
  },
  'POST /api/v1/plugins': {
    summary: 'Add a plugin instance (saved to plugins.json; an enabled one starts)',
    body: newInstanceBody,
    responses: { 201: pluginStatus, 400: fieldErrorResponse, 409: fieldErrorResponse },
  },
  'PATCH /api/v1/plugins/:id': {
    summary: 'Enable or disable a plugin instance',
    body: patchBody,
    responses: { 200: pluginStatus, 400: fieldErrorResponse },
  },
  'PUT /api/v1/plugins/:id/grants': {
    summary: "Approve an instance's grants (within what its plugin asks); a running instance restarts",
    body: grantsBody,
    responses: { 200: pluginStatus, 400: fieldErrorResponse },
  },
  'DELETE /api/v1/plugins/:id': {
    summary: 'Stop a plugin instance and remove it from plugins.json',
    responses: { 204: null },
  },
  'GET /api/v1/plugins/:id/config': {
    summary: "An instance's config form: its schema, its config without secrets, which secrets are set",
    query: NO_QUERY,
    responses: { 200: pluginConfigResponse },
  },
  'PUT /api/v1/plugins/:id/config': {
    summary: "Replace an instance's config (a secret left out keeps its value); the instance restarts",
    query: NO_QUERY,
    body: configBody,
    responses: { 200: pluginConfigValues, 400: fieldErrorResponse },
  },
};
