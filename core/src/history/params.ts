/** Parsing of history's query parameters, shared by GET /api/v1/history and the CLI. */
import type { Agg } from './slots.js';

export const AGGS: readonly Agg[] = ['mean', 'max', 'min', 'sum', 'last'];

const UNIT_S = { s: 1, m: 60, h: 3600, d: 86400 } as const;
/** A century of buckets is plenty; larger numbers are typos. */
const MAX_GROUP_S = 36500 * 86400;

/**
 * `group_by`: a whole number and a unit (s, m, h, d), at least 10 s and a whole number of
 * 10-s slots, since 10 s is the resolution history keeps. Returns seconds and the
 * normalised text, or the message that says what is wrong.
 */
export function parseGroupBy(text: string): { seconds: number; text: string } | { error: string } {
  const m = /^(\d{1,12})([smhd])$/.exec(text);
  if (!m)
    return { error: `group_by must be a whole number followed by s, m, h or d (e.g. 10s, 5m, 1h, 1d), got "${text}"` };
  const n = Number(m[1]);
  const seconds = n * UNIT_S[m[2] as keyof typeof UNIT_S];
  if (seconds < 10) return { error: `group_by must be at least 10s (the resolution of history), got "${text}"` };
  if (seconds % 10 !== 0)
    return { error: `group_by must be a whole number of 10-s slots (10s, 20s, 90s, 1m, ...), got "${text}"` };
  if (seconds > MAX_GROUP_S) return { error: `group_by must be at most 36500d, got "${text}"` };
  return { seconds, text: `${n}${m[2]}` };
}

export function isAgg(text: string): text is Agg {
  return (AGGS as readonly string[]).includes(text);
}
