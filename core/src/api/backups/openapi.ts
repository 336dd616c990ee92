import { fieldErrorResponse } from '../../contract/common-schemas.js';
import type { Operations } from '../operation.js';
import { NO_QUERY } from '../query.js';
import { scheduleBody } from './route.js';
import { backupEntry, backupSchedule, backupsResponse, restoreStaged } from '../../contract/backups.js';

export const backupsOperations: Operations = {
  'GET /api/v1/backups': {
    summary: 'The backups in the backups folder, the schedule, the last backup’s outcome and the last restore’s',
    query: NO_QUERY,
    responses: { 200: backupsResponse },
  },
  'POST /api/v1/backups': {
    summary: 'Write a backup now; answers once it is written',
    query: NO_QUERY,
    responses: { 201: backupEntry },
  },
  'PUT /api/v1/backups/schedule': {
    summary: 'Change the schedule (schedule, time, keep): saved to config.json, in force at once',
    query: NO_QUERY,
    body: scheduleBody,
    responses: { 200: backupSchedule, 400: fieldErrorResponse },
  },
  'GET /api/v1/backups/:name': {
    summary: 'Download a backup (Content-Disposition: attachment)',
    query: NO_QUERY,
    responses: {
      200: {
        contentType: 'application/vnd.sqlite3',
        description: 'The backup file, as `heliograph backup` writes it',
        schema: { type: 'string', format: 'binary' },
      },
    },
  },
  'DELETE /api/v1/backups/:name': {
    summary: 'Delete a backup',
    query: NO_QUERY,
    responses: { 204: null },
  },
  'POST /api/v1/backups/restore': {
    summary: 'Restore a backup: the body is the file (application/octet-stream)',
    description:
      'Runs the checks of `heliograph restore`; a refusal answers 422 in words and nothing changes. A backup that passes is staged and the service restarts in its process to put it in place.',
    query: NO_QUERY,
    responses: { 202: restoreStaged },
  },
  'POST /api/v1/backups/:name/restore': {
    summary: 'Restore a listed backup: the same checks and staging as an uploaded one',
    description:
      'Runs the checks of `heliograph restore` on a copy of the listed backup (the file itself is left as it is); a refusal answers 422 in words and nothing changes. A backup that passes is staged and the service restarts in its process to put it in place.',
    query: NO_QUERY,
    responses: { 202: restoreStaged },
  },
};
