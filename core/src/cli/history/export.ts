/**
 * `heliograph history export`: a topic's history as CSV, a header line and one line per
 * bucket, times in RFC 3339 UTC:
 *   time,topic,count,sum,min,max,last      (default: every field, so import restores them exactly)
 *   time,topic,value                       (with --agg: one aggregate, e.g. for a spreadsheet)
 * History that cannot be read (a damaged block) ends the export with an error and a
 * non-zero exit, never with silently missing lines.
 */
import { AGGS, isAgg, parseGroupBy } from '../../history/params.js';
import { TimeFormatter } from '../../history/utc-calendar.js';
import { systemClock } from '../../clock.js';
import { formatUtc, parseRfc3339 } from '../../rfc3339.js';
import { csvCell, write } from './csv.js';
import { openStore, parse, UsageError, USAGE, type HistoryCommandOptions } from './common.js';

export async function exportCsv(rest: string[], options: HistoryCommandOptions): Promise<number> {
  const { values } = parse(rest, false);
  const out = options.stdout ?? process.stdout;
  if (!values.topic) throw new UsageError(`--topic is required\n${USAGE}`);
  const group = parseGroupBy(values['group-by'] ?? '10s');
  if ('error' in group) throw new UsageError(group.error.replace('group_by', '--group-by'));
  if (values.agg !== undefined && !isAgg(values.agg))
    throw new UsageError(`--agg must be one of ${AGGS.join(', ')}, got "${values.agg}"`);
  const agg = values.agg;
  const clock = options.clock ?? systemClock;

  const { db, store } = await openStore(options, true);
  try {
    const topic = values.topic;
    const first = store.firstTime(topic);
    if (first === undefined)
      throw new Error(`no history is kept for "${topic}"; topics with history: ${store.topics().join(', ') || 'none'}`);
    const to = values.to === undefined ? clock.now() : time('--to', values.to);
    let from = values.from === undefined ? first : time('--from', values.from);
    if (from >= to)
      throw new UsageError(`--from must be before --to (${formatUtc(from)} is not before ${formatUtc(to)})`);
    const fmt = new TimeFormatter();
    const topicCell = csvCell(topic);
    await write(out, agg ? 'time,topic,value\n' : 'time,topic,count,sum,min,max,last\n');
    const unreadable: Array<{ fromMs: number; toMs: number }> = [];
    while (from < to) {
      const page = await store.query(topic, { fromMs: from, toMs: to, groupMs: group.ms, agg: agg ?? 'mean' });
      const { buckets } = page;
      let text = '';
      for (let b = 0; b < buckets.n; b++) {
        if (buckets.count[b] === 0) continue;
        const t = fmt.format(buckets.timeMs(b));
        text += agg
          ? `${t},${topicCell},${buckets.value(b, agg)}\n`
          : `${t},${topicCell},${buckets.count[b]},${buckets.value(b, 'sum')},${buckets.value(b, 'min')},${buckets.value(b, 'max')},${buckets.value(b, 'last')}\n`;
      }
      if (text) await write(out, text);
      // Pages cut a damaged range into pieces: adjacent pieces are told as one.
      for (const u of page.unreadable ?? []) {
        const prev = unreadable.at(-1);
        if (prev && prev.toMs >= u.fromMs) prev.toMs = Math.max(prev.toMs, u.toMs);
        else unreadable.push({ ...u });
      }
      if (page.nextMs === undefined) break;
      from = page.nextMs;
    }
    if (unreadable.length > 0) {
      const ranges = unreadable.map((u) => `${formatUtc(u.fromMs)} to ${formatUtc(u.toMs)}`).join(', ');
      (options.stderr ?? process.stderr).write(
        `heliograph: history of ${topic} could not be read for ${ranges}: the database holds damaged blocks there, so the export is incomplete. ` +
          'Run `heliograph history check` (and `heliograph history repair` with the server stopped), or export with a coarser --group-by (1h, 1d), which reads the hour and day rollups.\n',
      );
      return 1;
    }
  } finally {
    await store.close();
    await db.close();
  }
  return 0;
}

export function time(flag: string, text: string): number {
  const ms = parseRfc3339(text);
  if (ms === undefined)
    throw new UsageError(`${flag} must be an RFC 3339 time such as 2026-11-22T10:00:00Z, got "${text}"`);
  return ms;
}
