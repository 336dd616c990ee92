import { createReadStream, statSync } from 'node:fs';
import type { RouterContext } from '@koa/router';
import Router from '../router.js';
import { z } from 'zod';
import { scope } from '../auth.js';
import type { Backups, BackupEntry } from '../../backup/backups.js';
import type { RestoreOutcome } from '../../backup/restore.js';
import { formatUtc } from '../../rfc3339.js';
import { saveSettingChanges, type RecordChange } from '../change-audit.js';
import { ApiError } from '../errors.js';
import { parseBody } from '../../contract/field-issues.js';
import { NO_QUERY, parseQuery } from '../query.js';
import { backupSchedule } from '../../contract/backups.js';
import { stageRestore, type StagingDeps } from './restore-route.js';

/** PUT /api/v1/backups/schedule: any of schedule, time, keep (the folder is config.json's alone). */
export const scheduleBody = z.strictObject(
  {
    schedule: backupSchedule.shape.schedule.optional(),
    time: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time of day such as "03:30" (24-hour, HH:MM)')
      .optional(),
    keep: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be from 1 to 365')
      .max(365, 'must be from 1 to 365')
      .optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}: only schedule, time and keep are accepted (the folder is set in config.json)`
        : undefined,
  },
);

const entry = (b: BackupEntry) => ({ name: b.name, size: b.size, created_at: formatUtc(b.createdAt), kind: b.kind });
const utcOrNull = (ms: number | null) => (ms === null ? null : formatUtc(ms));

function notFound(name: string): ApiError {
  return new ApiError('BACKUP_NOT_FOUND', `no backup named "${name}": GET /api/v1/backups lists them`);
}

/** POST /api/v1/backups/{name}/restore: the upload's staging, checks and answer (restore-route.ts) with a file of the list. */
function restoreListed(backups: Backups, deps: StagingDeps) {
  return async (ctx: RouterContext): Promise<void> => {
    parseQuery(NO_QUERY, ctx.query);
    const name = ctx.params.name!;
    if (!backups.file(name)) throw notFound(name);
    const called = `the backup ${name}`;
    await stageRestore(ctx, deps, {
      prepare: () => {
        // Looked up again as the one restore under way: a name deleted meanwhile is not found.
        const path = backups.file(name);
        if (!path) throw notFound(name);
        return path;
      },
      called,
      named: called,
      which: ` from ${name}`,
    });
  };
}

/**
 * All admin: the list with the schedule and the last outcome, a backup made now, one
 * downloaded, deleted or restored by name (a name from the list, nothing else reaches the
 * disk), and the schedule changed. Creations, deletions, restores and schedule changes are
 * audited.
 */
export function backupsRoutes(deps: {
  backups: Backups;
  restored?: RestoreOutcome;
  record?: RecordChange;
  /** Restores a listed backup as an uploaded one is restored (restore-route.ts). */
  staging: StagingDeps['staging'];
}): Router {
  const { backups } = deps;
  const record: RecordChange = deps.record ?? (async () => {});
  const router = new Router();

  router.get('/backups', scope('admin'), (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    const status = backups.status();
    const restored = deps.restored;
    ctx.body = {
      schedule: backups.schedule(),
      folder: status.folder,
      next_at: utcOrNull(status.nextAt),
      last: { at: utcOrNull(status.lastAt), name: status.lastName, error: status.lastError },
      restored: restored ? { ...restored, at: formatUtc(restored.at) } : null,
      backups: backups.list().map(entry),
    };
  });

  // Answers once the file is written (a few seconds for a large history): the page waits for it.
  router.post('/backups', scope('admin'), async (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    let made: BackupEntry;
    try {
      made = await backups.create('manual');
    } catch (err) {
      throw new ApiError('BACKUP_FAILED', (err as Error).message);
    }
    await record({ who: ctx.state.who, topic: `backups/${made.name}`, oldValue: '', newValue: 'created' });
    ctx.status = 201;
    ctx.body = entry(made);
  });

  router.put('/backups/schedule', scope('admin'), async (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    const patch = parseBody(scheduleBody, ctx.request.body);
    await saveSettingChanges('the schedule', () => backups.updateSchedule(patch), record, ctx.state.who);
    ctx.body = backups.schedule();
  });

  router.get('/backups/:name', scope('admin'), (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    const name = ctx.params.name!;
    const path = backups.file(name);
    if (!path) throw notFound(name);
    ctx.type = 'application/vnd.sqlite3';
    // The name is ours (heliograph-<time>-<kind>.backup): plain ASCII, nothing to escape.
    ctx.set('Content-Disposition', `attachment; filename="${name}"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = createReadStream(path);
    // After the body: koa drops the length it does not know for a stream; a browser shows progress with it.
    ctx.length = statSync(path).size;
  });

  router.delete('/backups/:name', scope('admin'), async (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    const name = ctx.params.name!;
    if (!backups.remove(name)) throw notFound(name);
    await record({ who: ctx.state.who, topic: `backups/${name}`, oldValue: 'kept', newValue: 'deleted' });
    ctx.status = 204;
  });

  router.post('/backups/:name/restore', scope('admin'), restoreListed(backups, { staging: deps.staging, record }));

  return router;
}
