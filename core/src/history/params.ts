/** Parsing of history's query parameters, shared by GET /api/v1/history and the CLI. */
import type { Agg } from './slots.js';
import { SLOT_MS } from './utc-calendar.js';

export const AGGS: readonly Agg[] = ['mean', 'max', 'min', 'sum', 'last'];

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** A century of buckets is plenty; larger numbers are typos. */
const MAX_GROUP_MS = 36500 * UNIT_MS.d;

/**
 * `group_by`: a whole number and a unit (s, m, h, d), at least 10 s and a whole number of
 * 10-s slots, since 10 s is the resolution history keeps. Returns the size in ms and the
 * normalised text, or the message that says what is wrong.
 */
export function parseGroupBy(text: string): { ms: number; text: string } | { error: string } {
  const m = /^(\d{1,12})([smhd])$/.exec(text);
  if (!m)
    return { error: `group_by must be a whole number followed by s, m, h or d (e.g. 10s, 5m, 1h, 1d), got "${text}"` };
  const n = Number(m[1]);
  const ms = n * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  if (ms < SLOT_MS) return { error: `group_by must be at least 10s (the resolution of history), got "${text}"` };
  if (ms % SLOT_MS !== 0)
    return { error: `group_by must be a whole number of 10-s slots (10s, 20s, 90s, 1m, ...), got "${text}"` };
  if (ms > MAX_GROUP_MS) return { error: `group_by must be at most 36500d, got "${text}"` };
  return { ms, text: `${n}${m[2]}` };
}

export function isAgg(text: string): text is Agg {
  return (AGGS as readonly string[]).includes(text);
}
