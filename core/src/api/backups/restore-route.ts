import { createWriteStream, rmSync } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { RouterContext } from '@koa/router';
import Router from '../router.js';
import type { IncomingMessage } from 'node:http';
import { scope } from '../auth.js';
import { RestoreRefused } from '../../backup/checks.js';
import type { RestoreStaging } from '../../backup/stage.js';
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

/** What staging a restore needs; the same for the upload and a listed backup. */
export interface StagingDeps {
  staging: RestoreStaging;
  record?: RecordChange;
}

/** Which backup is restored, for the words, the audit and the log. */
export interface RestoreSource {
  /** Names the file to check, received or found: runs only as the one restore under way. */
  prepare(): string | Promise<string>;
  /** What the words call it instead of its path: "the uploaded file", "the backup <name>". */
  called: string;
  /** The answer's and the log's name for it, before "made <time> by version <version>". */
  named: string;
  /** The audit entry's words after "staged": "" for an upload, " from <name>" for a listed one. */
  which: string;
  /** Runs once the restore is staged or refused (the upload's file removed). */
  cleanup?(): void;
}

/**
 * Stages a restore and answers 202. A refusal answers 422 in words, a second restore while one
 * is checked or staged 409, and nothing changes then. Once the answer has gone out, the service
 * restarts in its process and puts the staged backup in place before it opens the database.
 */
export async function stageRestore(ctx: RouterContext, deps: StagingDeps, source: RestoreSource): Promise<void> {
  const record: RecordChange = deps.record ?? (async () => {});
  const staged = await deps.staging.exclusive(async () => {
    let checked;
    try {
      checked = await deps.staging.stage(await source.prepare(), source.called);
    } catch (err) {
      if (err instanceof RestoreRefused) throw new ApiError('RESTORE_REFUSED', err.message);
      throw err;
    } finally {
      source.cleanup?.();
    }
    const made = `made ${checked.info.created ?? '?'} by version ${checked.info.version ?? '?'}`;
    await record({
      who: ctx.state.who,
      topic: 'backups/restore',
      oldValue: '',
      newValue: `staged${source.which}, made ${checked.info.created ?? '?'} by ${checked.info.version ?? '?'}`,
    });
    log.info(`a restore of ${source.named} ${made} is staged; restarting to apply it`);
    ctx.status = 202;
    ctx.body = {
      restarting: true,
      message: `${source.named} ${made} passed the checks; the service restarts now and puts it in place (what is there now is kept as <name>.before-restore-<time>)`,
      created: checked.info.created ?? null,
      version: checked.info.version ?? null,
      stripped: checked.stripped,
    };
    // After the answer has gone out: the restart closes every connection.
    ctx.res.once('close', () => deps.staging.restart('a restore was staged from the API'));
    return true;
  });
  if (!staged)
    throw new ApiError('RESTORE_REFUSED', 'a restore is already under way: wait for the service to restart', {}, 409);
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
export function restoreRoutes(deps: StagingDeps & { limitBytes: number }): Router {
  const router = new Router();
  router.post(RESTORE_PATH, scope('admin'), async (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    const upload = deps.staging.scratch('restore-upload');
    await stageRestore(ctx, deps, {
      prepare: async () => {
        await receive(ctx, upload, deps.limitBytes);
        return upload;
      },
      // Not the upload's temporary file: the owner knows it as the file they sent.
      called: 'the uploaded file',
      named: 'the backup',
      which: '',
      cleanup: () => rmSync(upload, { force: true }),
    });
  });
  return router;
}
