import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MAIN } from '../helpers/server.js';
import type { Site } from './site.js';

/** kWh per hour of each imported total (`total/<name>`): a full day is 24 times this. */
export const PER_HOUR: Record<string, number> = {
  pv_energy: 0.25,
  load_energy: 0.5,
  grid_energy_in: 0.125,
  grid_energy_out: 0.05,
  battery_energy_in: 0.2,
  battery_energy_out: 0.15,
};

/**
 * History of kWh totals (`total/<name>`, `perHour` kWh an hour each) as the core counts them
 * with a weekly reset: one reading at the end of every hour of [from, to), restarting from 0
 * whenever `weekOf` names another week.
 */
export function weeklyTotalsCsv(
  perHour: Record<string, number>,
  from: number,
  to: number,
  weekOf: (ms: number) => number | string,
): string {
  const lines = ['time,topic,value'];
  for (const [name, kwh] of Object.entries(perHour)) {
    let value = 0;
    let week: number | string | undefined;
    for (let t = from; t < to; t += 3_600_000) {
      if (weekOf(t) !== week) {
        week = weekOf(t);
        value = 0;
      }
      value = Math.round((value + kwh) * 1000) / 1000;
      lines.push(`${new Date(t + 3_600_000 - 10_000).toISOString()},total/${name},${value}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Imports `csv` into the history of `site`, which is stopped, with `heliograph history import`. */
export async function importHistory(site: Site, csv: string): Promise<void> {
  const file = join(site.dataDir, 'totals.csv');
  writeFileSync(file, csv);
  await promisify(execFile)(process.execPath, [MAIN, 'history', 'import', file, '--data', site.dataDir], {
    env: { ...process.env, HELIOGRAPH_LOG_LEVEL: 'warn' },
  });
}
