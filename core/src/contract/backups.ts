import { z } from 'zod';
import { utcTime } from './common-schemas.js';

/** One backup file in the backups folder. */
export const backupEntry = z.object({
  /** The file's name: the path segment of GET and DELETE /api/v1/backups/{name}. */
  name: z.string(),
  size: z.number().int(),
  created_at: utcTime,
  /** `scheduled` ones are pruned beyond `keep`; `manual` ones (the page's "Back up now") are kept. */
  kind: z.enum(['scheduled', 'manual']),
});

export const backupSchedule = z.object({
  schedule: z.enum(['daily', 'weekly', 'off']),
  time: z.string(),
  keep: z.number().int(),
});

/** GET /api/v1/backups. */
export const backupsResponse = z.object({
  schedule: backupSchedule,
  /** Where backups are written (config `backups.path`, set in config.json only). */
  folder: z.string(),
  next_at: utcTime.nullable(),
  last: z.object({
    at: utcTime.nullable(),
    name: z.string().nullable(),
    /** Why the last backup failed, in words; null when it was written. */
    error: z.string().nullable(),
  }),
  /** What this start did with a restore staged from the page; null when there was none. */
  restored: z
    .object({
      at: utcTime,
      created: z.string().nullable(),
      version: z.string().nullable(),
      stripped: z.array(z.string()),
      error: z.string().nullable(),
    })
    .nullable(),
  backups: z.array(backupEntry),
});

/** POST /api/v1/backups/restore: the upload passed the checks and the service restarts to apply it. */
export const restoreStaged = z.object({
  restarting: z.literal(true),
  message: z.string(),
  created: z.string().nullable(),
  version: z.string().nullable(),
  /** Triggers, views and indexes the restore removes (Heliograph never makes them). */
  stripped: z.array(z.string()),
});
