/**
 * The service's backups folder: scheduled backups (config `backups`), backups made from the
 * page, their list, and the pruning of the scheduled ones beyond `keep`. Only files named as
 * this class names them are listed, served, pruned or deleted: anything else in the folder
 * is the owner's and is never touched.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DateTime } from 'luxon';
import type { Clock } from '../clock.js';
import { saveConfigChanges } from '../config/save.js';
import { siteTimeZone, type Config } from '../config/schema.js';
import { createLogger, errorMessage } from '../log.js';
import { fileStamp } from './restore.js';
import { writeBackup } from './write.js';

const log = createLogger('backups');

/** How often the schedule is compared with the clock: cheap, and a moved clock is seen soon. */
const CHECK_INTERVAL_MS = 5_000;
/** `heliograph-2026-11-28T03-30-00Z-scheduled.backup`, `...-manual-2.backup` (a second one that second). */
const NAME = /^heliograph-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ)-(scheduled|manual)(?:-(\d{1,3}))?\.backup$/;

export type BackupKind = 'scheduled' | 'manual';

export interface BackupEntry {
  name: string;
  size: number;
  /** When it was made (ms), from its name. */
  createdAt: number;
  kind: BackupKind;
}

export interface BackupStatus {
  folder: string;
  /** When the next scheduled backup is due (ms), or null when the schedule is off. */
  nextAt: number | null;
  lastAt: number | null;
  lastName: string | null;
  /** Why the last backup failed, in words, or null. */
  lastError: string | null;
}

export type BackupSchedule = Pick<Config['backups'], 'schedule' | 'time' | 'keep'>;

function parseName(name: string): { createdAt: number; kind: BackupKind; n: number } | undefined {
  const match = NAME.exec(name);
  if (!match) return undefined;
  const iso = match[1]!.replace(/T(\d\d)-(\d\d)-(\d\d)Z$/, 'T$1:$2:$3Z');
  return { createdAt: Date.parse(iso), kind: match[2] as BackupKind, n: Number(match[3] ?? 1) };
}

export class Backups {
  private nextAt: number | null = null;
  private last: { at: number | null; name: string | null; error: string | null } = {
    at: null,
    name: null,
    error: null,
  };
  /** One backup at a time: a scheduled one and a click never write side by side. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly options: {
      /** The service's config object (kept up to date in place). */
      config: Config;
      configFile: string;
      dataDir: string;
      pluginsFile: string;
      clock: Clock;
    },
  ) {}

  /** The folder: config `backups.path` (relative to the data directory), else `<data>/backups`. */
  folder(): string {
    const { config, dataDir } = this.options;
    return resolve(dataDir, config.backups.path ?? 'backups');
  }

  schedule(): BackupSchedule {
    const { schedule, time, keep } = this.options.config.backups;
    return { schedule, time, keep };
  }

  status(): BackupStatus {
    return {
      folder: this.folder(),
      nextAt: this.nextAt,
      lastAt: this.last.at,
      lastName: this.last.name,
      lastError: this.last.error,
    };
  }

  /** The backups in the folder, newest first. */
  list(): BackupEntry[] {
    let names: string[];
    try {
      names = readdirSync(this.folder());
    } catch (err) {
      // No folder yet, or none possible there (status().lastError says why): no backups.
      if (['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '')) return [];
      throw err;
    }
    const entries: Array<BackupEntry & { n: number }> = [];
    for (const name of names) {
      const parsed = parseName(name);
      if (!parsed) continue;
      const stat = statSync(join(this.folder(), name), { throwIfNoEntry: false });
      if (stat?.isFile())
        entries.push({ name, size: stat.size, createdAt: parsed.createdAt, kind: parsed.kind, n: parsed.n });
    }
    entries.sort((a, b) => b.createdAt - a.createdAt || b.n - a.n);
    return entries.map(({ n: _n, ...entry }) => entry);
  }

  /** The path of a listed backup, or undefined: only names from the list reach the disk. */
  file(name: string): string | undefined {
    return this.list().some((b) => b.name === name) ? join(this.folder(), name) : undefined;
  }

  /** Deletes a listed backup; false when there is none of that name. */
  remove(name: string): boolean {
    const path = this.file(name);
    if (!path) return false;
    rmSync(path, { force: true });
    return true;
  }

  /** Writes a backup now; throws in words (and remembers why) when it cannot. */
  create(kind: BackupKind): Promise<BackupEntry> {
    const run = this.queue.then(() => this.write(kind));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Changes the schedule: saved to the config file, in force at once. */
  updateSchedule(patch: Partial<BackupSchedule>): Array<{ key: string; oldValue: unknown; newValue: unknown }> {
    const current = this.options.config.backups;
    const changes = Object.entries(patch)
      .filter(([key, value]) => value !== undefined && current[key as keyof BackupSchedule] !== value)
      .map(([key, value]) => ({
        key: `backups.${key}`,
        oldValue: current[key as keyof BackupSchedule],
        newValue: value,
      }));
    if (changes.length === 0) return changes;
    const values = Object.fromEntries(changes.map((c) => [c.key.slice('backups.'.length), c.newValue]));
    saveConfigChanges(this.options.configFile, { backups: values });
    Object.assign(current, values);
    this.plan();
    return changes;
  }

  /** Starts the schedule; returns its stop. */
  start(): () => void {
    this.removeLeftovers();
    this.plan();
    const timer = setInterval(() => void this.check(), CHECK_INTERVAL_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Writes the scheduled backup when it is due (the timer calls this). */
  async check(): Promise<void> {
    if (this.nextAt === null || this.options.clock.now() < this.nextAt) return;
    // The next one is planned from now: a clock moved by days makes one backup, not one per day missed.
    this.nextAt = null;
    try {
      await this.create('scheduled');
    } catch {
      // Logged and shown in the status by write().
    }
    this.plan();
  }

  private plan(): void {
    const { schedule, time } = this.options.config.backups;
    if (schedule === 'off') {
      this.nextAt = null;
      return;
    }
    const [hour, minute] = time.split(':').map(Number) as [number, number];
    const now = DateTime.fromMillis(this.options.clock.now(), { zone: siteTimeZone(this.options.config) });
    let next = now.set({ hour, minute, second: 0, millisecond: 0 });
    if (schedule === 'weekly') next = next.set({ weekday: 1 });
    const step = schedule === 'weekly' ? { weeks: 1 } : { days: 1 };
    while (next.toMillis() <= now.toMillis()) next = next.plus(step);
    this.nextAt = next.toMillis();
  }

  private async write(kind: BackupKind): Promise<BackupEntry> {
    const now = this.options.clock.now();
    const folder = this.folder();
    let name = '';
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      name = this.freeName(folder, now, kind);
      const written = await writeBackup({
        dataDir: this.options.dataDir,
        pluginsFile: this.options.pluginsFile,
        target: join(folder, name),
        now,
      });
      this.last = { at: now, name, error: null };
      log.info(`${kind} backup written: ${written.target} (${(written.size / 1e6).toFixed(1)} MB)`);
      if (kind === 'scheduled') this.prune();
      return { name, size: written.size, createdAt: now, kind };
    } catch (err) {
      const error = `the ${kind} backup${name ? ` ${name}` : ''} could not be written to ${folder}: ${errorMessage(err)}`;
      this.last = { at: now, name: null, error };
      log.error(error);
      throw new Error(error, { cause: err });
    }
  }

  private freeName(folder: string, now: number, kind: BackupKind): string {
    const base = `heliograph-${fileStamp(now)}-${kind}`;
    for (let n = 1; n < 1000; n++) {
      const name = n === 1 ? `${base}.backup` : `${base}-${n}.backup`;
      if (!existsSync(join(folder, name))) return name;
    }
    throw new Error(`${folder} already holds 999 backups named ${base}`);
  }

  /** Deletes the oldest scheduled backups beyond `keep`; the page's own ones are the owner's to delete. */
  private prune(): void {
    const scheduled = this.list().filter((b) => b.kind === 'scheduled');
    for (const old of scheduled.slice(this.options.config.backups.keep)) {
      try {
        rmSync(join(this.folder(), old.name), { force: true });
        log.info(`deleted the scheduled backup ${old.name} (keeping ${this.options.config.backups.keep})`);
      } catch (err) {
        log.error(`could not delete the old backup ${old.name}: ${errorMessage(err)}`);
      }
    }
  }

  /** A backup cut short by a crash or a power cut leaves `<name>.partial-<pid>`: one of ours, removed. */
  private removeLeftovers(): void {
    let names: string[];
    try {
      names = readdirSync(this.folder());
    } catch {
      return;
    }
    for (const name of names) {
      const base = /^(.*)\.partial-\d+$/.exec(name)?.[1];
      if (base && parseName(base)) rmSync(join(this.folder(), name), { force: true });
    }
  }
}
