import { DateTime } from 'luxon';

const QUARTER_HOUR_MS = 15 * 60_000;

/**
 * Resamples Forecast.Solar's `watts` curve to quarter hours.
 *
 * The curve has one key per hour plus a sunrise and a sunset key at irregular times; each
 * value is the power at its time. A quarter hour [T, T+15 min) gets the curve's value at its
 * middle, linearly interpolated between the keys around it (for a straight segment that is
 * the quarter hour's mean). Outside daylight, between a day's sunset and the next sunrise,
 * the power is 0. The result covers whole local days, from the start of the day of the
 * first key to the end of the day of the last key, so a daylight-saving change day has 92
 * or 100 points.
 */
export function resampleWatts(
  watts: ReadonlyArray<readonly [time: number, watts: number]>,
  timeZone: string,
): Array<[number, number]> {
  if (watts.length === 0) return [];
  const keys = [...watts].sort((a, b) => a[0] - b[0]);
  const day = (ms: number) => DateTime.fromMillis(ms, { zone: timeZone }).toISODate();
  const start = DateTime.fromMillis(keys[0]![0], { zone: timeZone }).startOf('day').toMillis();
  const end = DateTime.fromMillis(keys.at(-1)![0], { zone: timeZone }).startOf('day').plus({ days: 1 }).toMillis();
  const points: Array<[number, number]> = [];
  let k = 0;
  for (let slot = start; slot < end; slot += QUARTER_HOUR_MS) {
    const middle = slot + QUARTER_HOUR_MS / 2;
    while (k + 1 < keys.length && keys[k + 1]![0] <= middle) k++;
    const [t0, w0] = keys[k]!;
    const next = keys[k + 1];
    let value = 0;
    if (t0 === middle) value = w0;
    else if (next && t0 < middle && day(t0) === day(next[0]))
      value = w0 + ((next[1] - w0) * (middle - t0)) / (next[0] - t0);
    points.push([slot, Math.max(0, value)]);
  }
  return points;
}
