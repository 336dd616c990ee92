/**
 * Every error answer's `code`: a stable name next to the words of `error`, which stay free
 * to improve. A client branches on the code; the message is for people. One table, used by
 * every route (through ApiError), the HTTP refusals of WebSocket upgrades, the OpenAPI
 * document (errorResponse's `code` enum) and docs/api.md, whose list a test holds to this
 * table. A code, once published, keeps its name and meaning; new situations get new codes.
 *
 * `status` is the HTTP status the code answers with: a list where the situation decides,
 * `4xx` where a library's refusal keeps the library's status.
 */
export const ERROR_CODES = {
  // The request as a whole: its route, method, headers and body.
  ENDPOINT_NOT_FOUND: { status: 404, meaning: 'No endpoint at this path (REST, or a WebSocket upgrade).' },
  METHOD_NOT_ALLOWED: {
    status: 405,
    meaning: 'The path exists but not with this method; `Allow` lists the ones it takes.',
  },
  METHOD_NOT_SUPPORTED: { status: 501, meaning: 'The server does not know the method at all (`PROPFIND`).' },
  HOST_NOT_ALLOWED: { status: 421, meaning: 'The `Host` header is not an address or name this unit answers to.' },
  ORIGIN_NOT_ALLOWED: { status: 403, meaning: 'A browser page from another site (`Origin`) may not call the API.' },
  BODY_NOT_JSON: { status: 415, meaning: 'A body was sent without `Content-Type: application/json`.' },
  BODY_TOO_LARGE: { status: 413, meaning: 'The body is larger than the API accepts (64 KiB).' },
  BODY_MALFORMED: { status: 400, meaning: 'The body is not valid JSON, or nests deeper than 32 levels.' },
  BODY_INVALID: {
    status: 400,
    meaning: 'The body is JSON but a field is missing or wrong; `issues` names the fields where it can.',
  },
  QUERY_INVALID: {
    status: 400,
    meaning: 'A query parameter is unknown, given twice, or has a value the endpoint does not take.',
  },
  REQUEST_REFUSED: {
    status: '4xx',
    meaning: 'Another refusal by a library the API builds on (koa, its router), with that library’s status.',
  },
  INTERNAL_ERROR: { status: 500, meaning: 'A fault in the service; the server log says more.' },
  DISK_FULL: { status: 507, meaning: 'The disk holding the data directory is full: nothing was saved.' },

  // Credentials and scopes.
  AUTH_FAILED: {
    status: 401,
    meaning: 'No credentials, a wrong password, or a token that is unknown, revoked or expired.',
  },
  NO_PASSWORD_SET: { status: 403, meaning: 'No password is set yet, so nothing can sign in (see setup).' },
  SCOPE_TOO_LOW: { status: 403, meaning: 'The token’s scope does not allow this request (read < write < admin).' },
  TOO_MANY_ATTEMPTS: {
    status: 429,
    meaning: 'Too many failed passwords or setup codes from this address; `Retry-After` says when to try again.',
  },
  AUTH_BUSY: {
    status: 503,
    meaning: 'Too many password checks are running at once; try again in a second (tokens are not affected).',
  },

  // The live stream's path.
  WEBSOCKET_UPGRADE_REQUIRED: { status: 426, meaning: 'A plain HTTP request to the WebSocket endpoint.' },
  SHUTTING_DOWN: { status: 503, meaning: 'The server is shutting down; reconnect in a moment.' },

  // GET and POST /api/v1/metrics.
  NO_METRICS: { status: 404, meaning: 'No plugin has declared any metric yet.' },
  METRIC_NOT_FOUND: { status: 404, meaning: 'No metric matches the topic or glob.' },
  METRIC_NOT_SINGLE: { status: 400, meaning: '`value=1` was asked for a topic that selects more than one metric.' },
  WRITE_REFUSED: {
    status: 422,
    meaning: 'The write was refused (not writable, out of range, the device said no); the audit has it too.',
  },
  WRITE_RATE_LIMITED: { status: 429, meaning: 'The setting was written too recently; `Retry-After` says when.' },

  // GET /api/v1/history and /api/v1/forecast.
  TOPIC_UNKNOWN: { status: 404, meaning: 'No metric has this topic and nothing is stored for it.' },
  HISTORY_UNAVAILABLE: { status: 503, meaning: 'The history store could not be opened; the message says why.' },
  HISTORY_RANGE_INVALID: { status: 400, meaning: '`from` is not before `to`.' },
  HISTORY_NOT_RECORDED: {
    status: 404,
    meaning: 'The topic exists but is not recorded (battery metrics, or per rule).',
  },
  FORECAST_RANGE_INVALID: { status: 400, meaning: '`from` is not before `to`.' },
  FORECAST_NOT_CONFIGURED: { status: 404, meaning: 'No forecast plugin is configured.' },
  FORECAST_NOT_FETCHED: { status: 404, meaning: 'The forecast plugin has not delivered a forecast since the start.' },
  FORECAST_NOT_A_FORECAST_TOPIC: { status: 404, meaning: 'The topic exists but is not one that has forecasts.' },
  FORECAST_NOT_PROVIDED: { status: 404, meaning: 'The configured forecast plugin does not provide this topic.' },

  // GET /api/v1/grid.
  GRID_RANGE_INVALID: {
    status: 400,
    meaning: 'Only one of `from` and `to` was given, `from` is not before `to`, or they are more than 367 days apart.',
  },

  // /api/v1/plugins and an instance's config.
  PLUGIN_INSTANCE_NOT_FOUND: { status: 404, meaning: 'No plugin instance has this id.' },
  PLUGIN_INSTANCE_EXISTS: { status: 409, meaning: 'An instance with this id already exists.' },
  PLUGIN_INSTANCE_IN_USE: {
    status: 409,
    meaning:
      'The instance is the site’s chosen price or forecast source, or one of their fallbacks: choose another first.',
  },
  PLUGIN_NOT_LOADABLE: {
    status: 409,
    meaning: 'The instance’s plugin is not installed or cannot be loaded, so it has no config form.',
  },
  // Not an HTTP answer: a plugin's call refused, with this code in its log and the audit.
  GRANT_MISSING: {
    status: 403,
    meaning: 'A plugin’s call outside the grants its owner approved: refused, in its log and the audit.',
  },
  PLUGINS_NOT_SAVED: { status: 500, meaning: 'plugins.json could not be written; the message says what that means.' },

  // /api/v1/config, /api/v1/tokens, /api/v1/setup.
  SETTINGS_NOT_SAVED: { status: 500, meaning: 'The site settings could not be written; nothing was changed.' },
  TOKEN_NOT_FOUND: { status: 404, meaning: 'No token has this id.' },
  TOKEN_NAME_TAKEN: { status: 409, meaning: 'A token with this name already exists.' },
  SETUP_DONE: { status: 409, meaning: 'The first password is already set; sign in instead.' },
  SETUP_CODE_WRONG: { status: 401, meaning: 'The setup code is not the one in the service’s log.' },

  // /api/v1/backups.
  BACKUP_NOT_FOUND: { status: 404, meaning: 'No backup in the backups folder has this name.' },
  BACKUP_FAILED: {
    status: 500,
    meaning: 'The backup could not be written (a full disk, a folder it may not write to); the message says why.',
  },
  RESTORE_UPLOAD_INVALID: {
    status: [415, 413],
    meaning: 'The restore’s body is not sent as `application/octet-stream`, or is larger than a backup can be.',
  },
  RESTORE_REFUSED: {
    status: [422, 409],
    meaning: 'The backup failed the restore’s checks (in words), or a restore is under way; nothing changed.',
  },

  // The settings page's files.
  PAGE_NOT_BUILT: { status: 404, meaning: 'The settings page has not been built on this unit.' },
  FILE_NOT_FOUND: { status: 404, meaning: 'No file of the settings page has this name.' },
  FILE_REFUSED: { status: [400, 403], meaning: 'The path is not a file of the settings page (it leaves its folder).' },
} as const satisfies Record<string, { status: number | readonly number[] | '4xx'; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Every code, in the table's order (for the OpenAPI enum and the docs' list). */
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** The status a code answers with when the thrower does not choose one (the first listed). */
export function defaultStatus(code: ErrorCode): number {
  const status: number | readonly number[] | '4xx' = ERROR_CODES[code].status;
  if (typeof status === 'number') return status;
  return status === '4xx' ? 400 : status[0]!;
}
