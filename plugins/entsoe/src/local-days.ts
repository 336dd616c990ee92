/*
 * Today and tomorrow as local days of the site. Every price plugin carries its own copy of
 * this file (see provider-errors.ts for why).
 */
import { DateTime } from 'luxon';

/** Unix ms bounds of today and tomorrow in a time zone, and their dates (`2026-10-25`). */
export interface LocalDays {
  todayStart: number;
  tomorrowStart: number;
  /** End of tomorrow, exclusive. */
  end: number;
  today: string;
  tomorrow: string;
}

/** Day lengths follow the zone's daylight-saving rules: a local day may last 23 or 25 hours. */
export function localDays(now: number, zone: string): LocalDays {
  const today = DateTime.fromMillis(now, { zone }).startOf('day');
  if (!today.isValid) throw new Error(`the site time zone "${zone}" is not a valid IANA time zone: fix it in the core config`);
  const tomorrow = today.plus({ days: 1 });
  return {
    todayStart: today.toMillis(),
    tomorrowStart: tomorrow.toMillis(),
    end: tomorrow.plus({ days: 1 }).toMillis(),
    today: today.toISODate() ?? '',
    tomorrow: tomorrow.toISODate() ?? '',
  };
}
