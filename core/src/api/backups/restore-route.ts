import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Router from '../router.js';
import type { IncomingMessage } from 'node:http';
import { scope } from '../auth.js';
import { RestoreRefused } from '../../backup/checks.js';
import { checkBackup, PENDING_RESTORE } from '../../backup/restore.js';
import type { RestartRequest } from '../../backup/restart.js';
import { createLogger } from '../../log.js';
import type { RecordChange } from '../change-audit.js';
import { ApiError } from '../errors.js';
import { NO_QUERY, parseQuery } from '../query.js';

const log = createLogger('backups');
/** The upload's types: what a browser sends for a File of unknown type, or SQLite's own. No form can post these without asking first. */
const UPLOAD_TYPES = /^application\/(octet-stream|vnd\.sqlite3|x-sqlite3)\s*(;|$)/i;
export const RESTORE_PATH = '/api/v1/backups/restore';

/** The body, streamed to `file`; refused past `limitBytes`. */
async function receive(
  ctx: { get(field: string): string; req: IncomingMessage },
  file: string,
  limitBytes: number,
): Promise<number> {
  const type = ctx.get('content-type');
  if (!UPLOAD_TYPES.test(type))
    throw new ApiError(
      'RESTORE_UPLOAD_INVALID',
      `send the backup file itself as the body with "Content-Type: application/octet-stream"${type ? `, not "${type.slice(0, 100)}"` : ''}`,
      {},
      415,
    );
  const tooLarge = () =>
    new ApiError(
      'RESTORE_UPLOAD_INVALID',
      `the upload is larger than ${Math.round(limitBytes / 1e6)} MB, more than a backup of this unit can be`,
      {},
      413,
    );
  if (Number(ctx.get('content-length') || 0) > limitBytes) throw tooLarge();
  let size = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      done(size > limitBytes ? tooLarge() : null, chunk);
    },
  });
  await pipeline(ctx.req, count, createWriteStream(file, { mode: 0o600 }));
  if (size === 0)
    throw new ApiError('RESTORE_REFUSED', 'the uploaded file is empty, not a backup: nothing was restored');
  return size;
}

/**
 * POST /api/v1/backups/restore (admin): the body is a backup file. It runs the checks of
 * `heliograph restore` on a copy; a refusal answers 422 in words and changes nothing. A
 * backup that passes is staged as `<data>/restore-pending.backup`, the answer is 202, and the
 * service restarts in its process to put it in place before it opens the database.
 *
 * Mounted outside /api/v1's router: that router reads every body as JSON of at most 64 KiB,
 * and this one is a database file, streamed to disk.
 */
export function restoreRoutes(deps: {
  dataDir: string;
  limitBytes: number;
  restart: RestartRequest;
  record?: RecordChange;
}): Router {
  const record: RecordChange = deps.record ?? (async () => {});
  const router = new Router();
  let busy = false;
  router.post(RESTORE_PATH, scope('admin'), async (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    if (busy || deps.restart.pending())
      throw new ApiError('RESTORE_REFUSED', 'a restore is already under way: wait for the service to restart', {}, 409);
    busy = true;
    const upload = join(deps.dataDir, `restore-upload-${process.pid}.partial`);
    const staging = join(deps.dataDir, `${PENDING_RESTORE}.checking`);
    try {
      await receive(ctx, upload, deps.limitBytes);
      let checked;
      try {
        checked = await checkBackup(upload, staging);
      } catch (err) {
        if (!(err instanceof RestoreRefused)) throw err;
        // The words name the upload's temporary file: the owner knows it as "the backup".
        throw new ApiError('RESTORE_REFUSED', err.message.split(upload).join('the uploaded file'));
      }
      renameSync(staging, join(deps.dataDir, PENDING_RESTORE));
      const made = `made ${checked.info.created ?? '?'} by version ${checked.info.version ?? '?'}`;
      await record({
        who: ctx.state.who,
        topic: 'backups/restore',
        oldValue: '',
        newValue: `staged, made ${checked.info.created ?? '?'} by ${checked.info.version ?? '?'}`,
      });
      log.info(`a restore of the backup ${made} is staged; restarting to apply it`);
      ctx.status = 202;
      ctx.body = {
        restarting: true,
        message: `the backup ${made} passed the checks; the service restarts now and puts it in place (what is there now is kept as <name>.before-restore-<time>)`,
        created: checked.info.created ?? null,
        version: checked.info.version ?? null,
        stripped: checked.stripped,
      };
      // After the answer has gone out: the restart closes every connection.
      ctx.res.once('close', () => deps.restart.request('a restore was staged from the API'));
    } finally {
      rmSync(upload, { force: true });
      rmSync(staging, { force: true });
      busy = false;
    }
  });
  return router;
}
