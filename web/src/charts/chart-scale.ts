// The pure parts of the power chart: how series of different resolutions share one time
// axis, and the time axis labels. No DOM, so node tests run them.

/**
 * The column as uPlot draws it: a time missing from this series because another series
 * has a point there (a 15-min forecast beside hourly history) becomes `undefined`, which
 * uPlot bridges; a real gap in the series' own resolution (longer than 1.5 of its steps)
 * stays `null`, which breaks the line. So series of different resolutions each draw fully.
 */
export function spanColumn(
  times: number[],
  column: Array<number | null>,
  stepS: number,
): Array<number | null | undefined> {
  const out: Array<number | null | undefined> = column.slice();
  let last = -1;
  for (let i = 0; i < column.length; i++) {
    if (column[i] === null) continue;
    if (last >= 0 && times[i]! - times[last]! <= stepS * 1.5) for (let j = last + 1; j < i; j++) out[j] = undefined;
    last = i;
  }
  return out;
}

/**
 * Tick labels for a time axis in the browser's locale (24 h where it uses 24 h) and the site's
 * zone: times of day when ticks are less than a day apart (the day's name at midnight),
 * else days, or months and days beyond 40 days.
 */
export function timeTicks(ticks: number[], spanS: number, timeZone?: string): string[] {
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : 3600;
  const day = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', timeZone });
  if (step < 86400) {
    const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', timeZone });
    const wall = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone });
    return ticks.map((t) => (wall.format(t * 1000) === '00:00' ? day : time).format(t * 1000));
  }
  const format =
    spanS <= 40 * 86400 ? day : new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone });
  return ticks.map((t) => format.format(t * 1000));
}
