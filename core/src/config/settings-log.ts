import type { Clock } from '../clock.js';
import type { Db, Migration } from '../db.js';
import { DbWriter } from '../db-writer.js';
import { createLogger, errorMessage } from '../log.js';
import { siteTimeZone, type Config } from './schema.js';
import type { LiveSiteSettings, SettingChange } from './site-settings.js';

const log = createLogger('config');

export const settingsLogMigrations: Migration[] = [
  {
    id: 'settings-log:1',
    // One row per accepted change of a setting that decides how stored counters read: the
    // value in force from `time` on (Unix ms). The first rows are the values at first start.
    sql: `CREATE TABLE settings_log (time INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL);
      CREATE INDEX settings_log_key_time ON settings_log (key, time)`,
  },
];

/** The logged settings: the zone the energy counters count local days in, and their reset. */
export const LOGGED_KEYS = ['site.timeZone', 'energy.resetPeriod'] as const;
export type LoggedKey = (typeof LOGGED_KEYS)[number];

/** A value in force from `time` (Unix ms) on. */
export interface LoggedValue {
  time: number;
  value: string;
}

/** The values in force: the zone resolved (null is the system's zone, which is what the counters use). */
function valuesOf(config: Config): Record<LoggedKey, string> {
  return { 'site.timeZone': siteTimeZone(config), 'energy.resetPeriod': config.energy.resetPeriod };
}

/**
 * The settings change log: when the site's time zone or the energy reset period changed, and
 * to what, kept in the database (`settings_log`) so that stored history is read by the rules
 * in force when it was recorded (energy/period-energy.ts). The values in force are logged at
 * the start when they differ from the last logged ones (the first start, or a system zone
 * that changed under a `null` setting), and every accepted change at its time. The log is
 * held in memory too, so an answer given right after a change already knows it; the rows go
 * through the server's one write path.
 */
export class SettingsLog {
  private readonly byKey = new Map<LoggedKey, LoggedValue[]>(LOGGED_KEYS.map((k) => [k, []]));
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly writer: DbWriter = new DbWriter(() => clock.now()),
  ) {}

  /** Loads the log, logs the values in force where they differ, and listens for changes; returns the disposer. */
  async start(settings: LiveSiteSettings, config: Config): Promise<() => Promise<void>> {
    const rows = await this.db.all<Array<{ time: number; key: string; value: string }>>(
      'SELECT time, key, value FROM settings_log ORDER BY time, rowid',
    );
    for (const row of rows) this.byKey.get(row.key as LoggedKey)?.push({ time: row.time, value: row.value });
    this.logValues(valuesOf(config));
    const listener = (now: Config, changes: SettingChange[]) => {
      if (changes.some((c) => (LOGGED_KEYS as readonly string[]).includes(c.key))) this.logValues(valuesOf(now));
    };
    settings.on('changed', listener);
    return async () => {
      settings.off('changed', listener);
      await this.flush();
    };
  }

  /** The values of `key` in time order, each in force until the next; the first is the earliest known. */
  values(key: LoggedKey): readonly LoggedValue[] {
    return this.byKey.get(key)!;
  }

  /**
   * The energy rules in force at `time`: the zone and reset period logged last before it (the
   * earliest known for a time before the log began), or null before anything is logged.
   */
  energyRulesAt(time: number): { period: Config['energy']['resetPeriod']; timeZone: string } | null {
    const at = (key: LoggedKey) => {
      const values = this.values(key);
      let found = values[0];
      for (const v of values) if (v.time <= time) found = v;
      return found?.value;
    };
    const timeZone = at('site.timeZone');
    const period = at('energy.resetPeriod');
    return timeZone && period ? { period: period as Config['energy']['resetPeriod'], timeZone } : null;
  }

  /** Resolves once the rows logged so far are written (or failed). */
  flush(): Promise<void> {
    return this.last;
  }

  private logValues(values: Record<LoggedKey, string>): void {
    const time = this.clock.now();
    const rows: Array<[number, LoggedKey, string]> = [];
    for (const key of LOGGED_KEYS) {
      const list = this.byKey.get(key)!;
      if (list.at(-1)?.value === values[key]) continue;
      list.push({ time, value: values[key] });
      rows.push([time, key, values[key]]);
    }
    if (rows.length === 0) return;
    const write = this.writer.run('settings log', () =>
      this.db.run(
        `INSERT INTO settings_log (time, key, value) VALUES ${rows.map(() => '(?, ?, ?)').join(', ')}`,
        ...rows.flat(),
      ),
    );
    // Kept in memory either way: this run's answers stay right; a restart would miss the row.
    this.last = write.then(
      () => undefined,
      (err: unknown) =>
        log.error('a change of the time zone or reset period could not be logged; a restart will not know it', {
          err: errorMessage(err),
        }),
    );
  }
}
