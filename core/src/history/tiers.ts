/* The tiers of history's rows (rows.ts) and their segments, apart so that damage.ts names them without importing rows.ts. */
import { DAY_S, monthStart, nextMonthStart, nextYearStart, yearStart } from './utc-calendar.js';

/** Entry length in seconds of each tier, finest first. */
export const TIERS = [10, 60, 3600, 86400] as const;
export type Tier = (typeof TIERS)[number];

/** Start of the segment of `tier` that holds time t: a day, a month (1h) or a year (1d). */
export function segmentStart(tier: Tier, t: number): number {
  if (tier === 3600) return monthStart(t);
  if (tier === 86400) return yearStart(t);
  return t - (((t % DAY_S) + DAY_S) % DAY_S);
}

export function segmentEnd(tier: Tier, start: number): number {
  if (tier === 3600) return nextMonthStart(start);
  if (tier === 86400) return nextYearStart(start);
  return start + DAY_S;
}

/** Entries in the segment starting at `start`. */
export function segmentLength(tier: Tier, start: number): number {
  return (segmentEnd(tier, start) - start) / tier;
}

/** The largest "last reading" offset of a tier's entries, in 10-s slots (0 at the 10-s tier). */
export function maxLastOff(tier: Tier): number {
  return tier / 10 - 1;
}
