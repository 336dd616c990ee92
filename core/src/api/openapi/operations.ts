import { z } from 'zod';
import { siteSettingsPatchSchema } from '../../config/site-settings.js';
import { auditQuery } from '../audit.js';
import { forecastQuery } from '../forecast.js';
import { gridQuery } from '../grid.js';
import { historyQuery } from '../history.js';
import { snapshotQuery, writeBody } from '../metrics.js';
import { configBody } from '../plugin-config.js';
import { newInstanceBody, patchBody } from '../plugin-instances.js';
import { NO_QUERY } from '../query.js';
import * as s from '../schemas/index.js';
import { setupBody } from '../setup.js';
import { systemQuery } from '../system.js';
import { createTokenBody } from '../tokens.js';

/** An answer that is not JSON: its content type, and a JSON Schema of the body where one helps. */
export interface OtherContent {
  /** The answer's content type, or the several it may have (the page's files). */
  contentType: string | readonly string[];
  description: string;
  schema?: Record<string, unknown>;
}

/**
 * One answer of an operation: a response schema from api/schemas (JSON), another content
 * type, or `null` for an answer without a body (204).
 */
export type Answer = z.ZodType | OtherContent | readonly [z.ZodType, OtherContent] | null;

/** What the document says about one route, with the schemas the handler itself validates with. */
export interface Operation {
  summary: string;
  description?: string;
  /** The (strict) query schema the handler parses with; its keys become query parameters. */
  query?: z.ZodObject;
  /** The request body schema the handler parses with (JSON). */
  body?: z.ZodType;
  /** Answers by status. 4xx/5xx not listed here are `{"error"}` (errorResponse). */
  responses: Record<number, Answer>;
}

const text = (description: string): OtherContent => ({
  contentType: 'text/plain; charset=utf-8',
  description,
  schema: { type: 'string' },
});

const page: OtherContent = {
  contentType: 'text/html; charset=utf-8',
  description: 'The settings page (index.html)',
};

/** What @koa/send answers for the files web/build.mjs writes: the page, its script and style sheet. */
const pageFile: OtherContent = {
  contentType: ['text/html; charset=utf-8', 'text/javascript; charset=utf-8', 'text/css; charset=utf-8'],
  description: "A file of the settings page's build: index.html, its hashed script or style sheet",
};

const stream: Operation = {
  summary: 'The live stream (WebSocket, Phoenix Channels): a plain HTTP request is told to upgrade',
  description:
    'Connect with a WebSocket client and `?password=` or `?token=`; join channel `metrics`. See docs/api.md, "WebSocket".',
  responses: { 426: s.errorResponse },
};

/**
 * Every route the app registers, keyed `METHOD path` as api/routes.ts lists them. The query
 * and body schemas are the handlers' own, the answers the schemas of api/schemas, so the
 * document cannot say something the server does not check. A route missing here still
 * appears in the document, marked undescribed (and the OpenAPI test fails).
 */
export const OPERATIONS: Record<string, Operation> = {
  'GET /api/v1/metrics': {
    summary: 'Snapshot of current metric values, optionally filtered by a topic glob',
    query: snapshotQuery,
    responses: { 200: [s.metricsResponse, text('With value=1: the one matching metric’s bare value')] },
  },
  'POST /api/v1/metrics': {
    summary: 'Write a setting; answers once the device confirmed it',
    body: writeBody,
    responses: { 200: s.writeResponse },
  },
  'GET /api/v1/history': {
    summary: "One topic's recorded history in epoch-aligned buckets, 2000 per page",
    query: historyQuery,
    responses: { 200: s.historyResponse },
  },
  'GET /api/v1/forecast': {
    summary:
      "One weather topic's stored forecast, or a plugin's plan series (planner_1/soc_planned), at 15-minute resolution",
    query: forecastQuery,
    responses: { 200: s.forecastResponse },
  },
  'GET /api/v1/grid': {
    summary: "The grid provider and today's price slots onwards, or the slots of a past or future range (from, to)",
    query: gridQuery,
    responses: { 200: s.gridResponse },
  },
  'GET /api/v1/system': {
    summary: 'The unit’s system/* rows: site id, software version, CPU temperature, free storage, uptime',
    query: systemQuery,
    responses: { 200: s.systemResponse },
  },
  'GET /api/v1/openapi.json': {
    summary: 'This document',
    query: NO_QUERY,
    responses: { 200: s.openApiDocument },
  },
  'GET /api/v1/plugins': {
    summary: 'Every plugin instance with its state, then history’s own status',
    query: NO_QUERY,
    responses: { 200: s.pluginsResponse },
  },
  'GET /api/v1/plugins/installed': {
    summary: 'Every installed plugin that can be added, with its config schema',
    responses: { 200: s.installedPluginsResponse },
  },
  'POST /api/v1/plugins': {
    summary: 'Add a plugin instance (saved to plugins.json; an enabled one starts)',
    body: newInstanceBody,
    responses: { 201: s.pluginStatus, 400: s.fieldErrorResponse, 409: s.fieldErrorResponse },
  },
  'PATCH /api/v1/plugins/:id': {
    summary: 'Enable or disable a plugin instance',
    body: patchBody,
    responses: { 200: s.pluginStatus, 400: s.fieldErrorResponse },
  },
  'DELETE /api/v1/plugins/:id': {
    summary: 'Stop a plugin instance and remove it from plugins.json',
    responses: { 204: null },
  },
  'GET /api/v1/plugins/:id/config': {
    summary: "An instance's config form: its schema, its config without secrets, which secrets are set",
    query: NO_QUERY,
    responses: { 200: s.pluginConfigResponse },
  },
  'PUT /api/v1/plugins/:id/config': {
    summary: "Replace an instance's config (a secret left out keeps its value); the instance restarts",
    query: NO_QUERY,
    body: configBody,
    responses: { 200: s.pluginConfigValues, 400: s.fieldErrorResponse },
  },
  'GET /api/v1/config': {
    summary: 'The site settings (site, energy, prices) and their JSON Schema',
    responses: { 200: s.siteConfigResponse },
  },
  'PUT /api/v1/config': {
    summary: 'Change any subset of the site settings; applied without a restart',
    body: siteSettingsPatchSchema,
    responses: { 200: s.siteSettings, 400: s.fieldErrorResponse },
  },
  'GET /api/v1/audit': {
    summary: 'Write attempts and setup changes, newest first',
    query: auditQuery,
    responses: { 200: s.auditResponse },
  },
  'POST /api/v1/tokens': {
    summary: 'Create an API token; the only answer that shows its secret',
    query: NO_QUERY,
    body: createTokenBody,
    responses: { 201: s.createdToken },
  },
  'GET /api/v1/tokens': {
    summary: 'Every API token, without secrets',
    query: NO_QUERY,
    responses: { 200: s.tokensResponse },
  },
  'DELETE /api/v1/tokens/:id': {
    summary: 'Revoke a token: it stops working at once, its sockets close',
    query: NO_QUERY,
    responses: { 204: null },
  },
  'GET /api/v1/setup': {
    summary: 'Whether the first password still has to be set',
    responses: { 200: s.setupStatus },
  },
  'POST /api/v1/setup': {
    summary: "Set the first password with the setup code from the service's log; answers with an admin token",
    body: setupBody,
    responses: { 201: s.createdToken, 400: s.fieldErrorResponse },
  },
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
  'GET /api/websocket': stream,
  'POST /api/websocket': stream,
  'PUT /api/websocket': stream,
  'PATCH /api/websocket': stream,
  'DELETE /api/websocket': stream,
  'GET /': { summary: 'The settings page', responses: { 200: page } },
  'GET /:file': { summary: "A file of the settings page's build", responses: { 200: pageFile } },
};
