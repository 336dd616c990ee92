import { DateTime } from 'luxon';
import type { LoggedValue } from '../config/settings-log.js';

export const ENERGY_PERIODS = ['hour', 'day', 'month', 'year'] as const;
export type EnergyPeriod = (typeof ENERGY_PERIODS)[number];

/** One calendar period of the answer: [from, to) in Unix ms, in the zone in force at its start. */
export interface PeriodBucket {
  from: number;
  to: number;
  zone: string;
}

/** From `from` on (Unix ms), buckets are calendar periods of `zone`. */
interface ZoneSpan {
  from: number;
  zone: string;
}

/** The first start of a `period` in `zone` at or after `time`. */
function ceilToPeriod(time: number, period: EnergyPeriod, zone: string): number {
  const start = DateTime.fromMillis(time, { zone }).startOf(period);
  return start.toMillis() === time ? time : start.plus({ [period]: 1 }).toMillis();
}

/**
 * When each zone of the log takes over the buckets of `period`. A bucket keeps the zone in
 * force at its start, so a change takes effect at the end of the bucket running when it was
 * made (computed in that bucket's zone); several changes within one bucket leave the last.
 * Before the first logged value (history older than the log) its zone applies.
 */
function zoneSpans(zones: readonly LoggedValue[], period: EnergyPeriod, fallback: string): ZoneSpan[] {
  const spans: ZoneSpan[] = [{ from: -Infinity, zone: zones[0]?.value ?? fallback }];
  for (const change of zones.slice(1)) {
    const current = spans.at(-1)!;
    if (change.time <= current.from) {
      // The switch before this one has not taken effect yet: this one replaces it.
      current.zone = change.value;
      if (spans.length > 1 && spans.at(-2)!.zone === current.zone) spans.pop();
      continue;
    }
    if (change.value === current.zone) continue;
    spans.push({ from: ceilToPeriod(change.time, period, current.zone), zone: change.value });
  }
  return spans;
}

/**
 * The calendar periods overlapping [from, to): whole hours, days, months or years in the zone
 * in force at each one's start (DST days are 23 or 25 h long). Where the zone changed, the
 * bucket running at the change keeps its old bounds and the next one starts where it ended,
 * running to the next boundary of the new zone (so it can be shorter than a full period).
 * The bounds depend on the log alone, never on the range asked: a past bucket stays the same.
 */
export function periodBuckets(
  period: EnergyPeriod,
  from: number,
  to: number,
  zones: readonly LoggedValue[],
  fallbackZone: string,
): PeriodBucket[] {
  const spans = zoneSpans(zones, period, fallbackZone);
  let i = 0;
  while (i + 1 < spans.length && spans[i + 1]!.from <= from) i++;
  let start = Math.max(spans[i]!.from, DateTime.fromMillis(from, { zone: spans[i]!.zone }).startOf(period).toMillis());
  const out: PeriodBucket[] = [];
  while (start < to) {
    const { zone } = spans[i]!;
    const next = spans[i + 1]?.from ?? Infinity;
    const end = Math.min(
      next,
      DateTime.fromMillis(start, { zone })
        .startOf(period)
        .plus({ [period]: 1 })
        .toMillis(),
    );
    out.push({ from: start, to: end, zone });
    start = end;
    if (start >= next) i++;
  }
  return out;
}

/** `2026-11-23T00:00:00+01:00`: RFC 3339 with the offset of `zone` at that time. */
export function formatInZone(ms: number, zone: string): string {
  return DateTime.fromMillis(ms, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
}
