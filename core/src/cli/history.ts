/**
 * `heliograph history export` and `heliograph history import`: history as CSV, for backup
 * and migration. Both work on the data dir's database directly.
 *
 * Export writes a header line and one line per bucket, times in RFC 3339 UTC:
 *   time,topic,count,sum,min,max,last      (default: every field, so import restores them exactly)
 *   time,topic,value                       (with --agg: one aggregate, e.g. for a spreadsheet)
 * Import reads either form back (columns in any order; `topic` may instead come from
 * --topic, which also renames on the way in). A `value` line is one reading; a line with
 * the five fields is a slot as exported. `time` may also be Unix seconds, as other tools write.
 */
import { once } from 'node:events';
import { createReadStream, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { systemClock, type Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import { openDatabase } from '../db.js';
import { errorMessage } from '../log.js';
import { AGGS, isAgg, parseGroupBy } from '../history/params.js';
import { HistoryStore, type SlotAggregate, type TopicHandle } from '../history/store.js';
import { TimeFormatter } from '../history/utc-calendar.js';
import { formatUtc, parseRfc3339 } from '../rfc3339.js';
import { BATTERY_TOPIC, metaFromTopic } from '../history/topic-record.js';
import { isGlob } from '../topics/glob.js';

export interface HistoryCommandOptions {
  dataDir: string;
  config: Config;
  /** For tests: where output and progress go, and the time. */
  stdout?: Writable;
  stderr?: Writable;
  clock?: Clock;
}

const USAGE = `usage:
  heliograph history export --topic T [--from TIME] [--to TIME] [--group-by 10s] [--agg mean|max|min|sum|last] > file.csv
  heliograph history import FILE.csv [--topic T]
Stop the server before importing: only one process may write history.`;

/** Runs `history export|import ...`; resolves to the exit code. */
export async function runHistoryCommand(args: string[], options: HistoryCommandOptions): Promise<number> {
  const stderr = options.stderr ?? process.stderr;
  const [sub, ...rest] = args;
  try {
    if (sub === 'export') return await exportCsv(rest, options);
    if (sub === 'import') return await importCsv(rest, options);
    stderr.write(`${sub === undefined ? 'missing' : `unknown`} history command${sub ? ` "${sub}"` : ''}\n${USAGE}\n`);
    return 2;
  } catch (err) {
    stderr.write(`heliograph: ${errorMessage(err)}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
}

class UsageError extends Error {}

function parse(rest: string[], allowPositionals: boolean) {
  try {
    return parseArgs({
      args: rest,
      allowPositionals,
      options: {
        topic: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        'group-by': { type: 'string' },
        agg: { type: 'string' },
        // Read by the caller to find the data dir; accepted here so they may come anywhere.
        data: { type: 'string' },
        config: { type: 'string' },
      },
    });
  } catch (err) {
    throw new UsageError(`${errorMessage(err)}\n${USAGE}`);
  }
}

async function openStore(options: HistoryCommandOptions, readOnly: boolean) {
  const db = await openDatabase(join(options.dataDir, 'heliograph.db'));
  try {
    const store = await HistoryStore.open({ db, clock: options.clock ?? systemClock, config: options.config.history, autoFlush: false, readOnly });
    return { db, store };
  } catch (err) {
    await db.close();
    throw err;
  }
}

async function exportCsv(rest: string[], options: HistoryCommandOptions): Promise<number> {
  const { values } = parse(rest, false);
  const out = options.stdout ?? process.stdout;
  if (!values.topic) throw new UsageError(`--topic is required\n${USAGE}`);
  const group = parseGroupBy(values['group-by'] ?? '10s');
  if ('error' in group) throw new UsageError(group.error.replace('group_by', '--group-by'));
  if (values.agg !== undefined && !isAgg(values.agg)) throw new UsageError(`--agg must be one of ${AGGS.join(', ')}, got "${values.agg}"`);
  const agg = values.agg;
  const clock = options.clock ?? systemClock;

  const { db, store } = await openStore(options, true);
  try {
    const topic = values.topic;
    const first = store.firstTime(topic);
    if (first === undefined) throw new Error(`no history is kept for "${topic}"; topics with history: ${store.topics().join(', ') || 'none'}`);
    const to = values.to === undefined ? clock.now() : time('--to', values.to);
    let from = values.from === undefined ? first : time('--from', values.from);
    if (from >= to) throw new UsageError(`--from must be before --to (${formatUtc(from)} is not before ${formatUtc(to)})`);
    const fmt = new TimeFormatter();
    const topicCell = csvCell(topic);
    await write(out, agg ? 'time,topic,value\n' : 'time,topic,count,sum,min,max,last\n');
    while (from < to) {
      const page = await store.query(topic, { fromMs: from, toMs: to, groupS: group.seconds, agg: agg ?? 'mean' });
      const { buckets } = page;
      let text = '';
      for (let b = 0; b < buckets.n; b++) {
        if (buckets.count[b] === 0) continue;
        const t = fmt.format(buckets.start + b * buckets.size);
        text += agg
          ? `${t},${topicCell},${buckets.value(b, agg)}\n`
          : `${t},${topicCell},${buckets.count[b]},${buckets.value(b, 'sum')},${buckets.value(b, 'min')},${buckets.value(b, 'max')},${buckets.value(b, 'last')}\n`;
      }
      if (text) await write(out, text);
      if (page.nextMs === undefined) break;
      from = page.nextMs;
    }
  } finally {
    await store.close();
    await db.close();
  }
  return 0;
}

function time(flag: string, text: string): number {
  const ms = parseRfc3339(text);
  if (ms === undefined) throw new UsageError(`${flag} must be an RFC 3339 time such as 2026-11-22T10:00:00Z, got "${text}"`);
  return ms;
}

function csvCell(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Writes, then waits while the reader is behind (once() also drops its listeners on either outcome). */
async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

interface Columns {
  time: number;
  topic?: number;
  value?: number;
  fields?: [count: number, sum: number, min: number, max: number, last: number];
}

async function importCsv(rest: string[], options: HistoryCommandOptions): Promise<number> {
  const { values, positionals } = parse(rest, true);
  const stderr = options.stderr ?? process.stderr;
  if (positionals.length !== 1) throw new UsageError(`import takes one CSV file\n${USAGE}`);
  const file = positionals[0]!;
  const size = statSync(file).size;

  // First a pass that only checks, so a bad line leaves history untouched.
  let lines = 0;
  const topics = new Set<string>();
  await eachRow(file, values.topic, (row, cols, lineNo) => {
    parseRow(row, cols, lineNo, file, values.topic);
    lines++;
    topics.add(values.topic ?? row[cols.topic!]!);
  });
  for (const topic of topics) {
    if (BATTERY_TOPIC.test(topic)) throw new Error(`${file}: ${topic}: battery metrics are not recorded in history, so they cannot be imported`);
  }

  const { db, store } = await openStore(options, false);
  const progress = new Progress(stderr, size);
  try {
    const slots = new Map<string, SlotAggregate[]>();
    const flushSlots = async () => {
      for (const [topic, list] of slots) await store.importSlots({ topic, ...(store.describe(topic) ?? metaFromTopic(topic)) }, list);
      slots.clear();
    };
    const handles = new Map<string, TopicHandle>();
    const handle = (topic: string) => {
      let h = handles.get(topic);
      if (!h) handles.set(topic, (h = store.topic({ topic, ...(store.describe(topic) ?? metaFromTopic(topic)) })));
      return h;
    };
    let done = 0;
    await eachRow(file, values.topic, async (row, cols, lineNo, bytes) => {
      const r = parseRow(row, cols, lineNo, file, values.topic);
      if (r.value !== undefined) {
        store.record(handle(r.topic), r.timeMs, r.value);
      } else {
        let list = slots.get(r.topic);
        if (!list) slots.set(r.topic, (list = []));
        list.push(r.slot!);
      }
      if (++done % 50_000 === 0) {
        await flushSlots();
        await store.flush();
        progress.show(bytes, done);
      }
    });
    await flushSlots();
    await store.flush();
    progress.done(done, lines, [...topics]);
  } finally {
    await store.close();
    await db.close();
  }
  return 0;
}

type RowHandler = (row: string[], cols: Columns, lineNo: number, bytes: number) => void | Promise<void>;

/** Calls `handle` for every data line of a CSV file, after reading the header. */
async function eachRow(file: string, topicFlag: string | undefined, handle: RowHandler): Promise<void> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let cols: Columns | undefined;
  let lineNo = 0;
  let bytes = 0;
  for await (const line of lines) {
    lineNo++;
    bytes += Buffer.byteLength(line) + 1;
    if (line.trim() === '' || line.startsWith('#')) continue;
    const row = splitCsv(line);
    if (!cols) {
      cols = columnsOf(row, file, topicFlag);
      continue;
    }
    await handle(row, cols, lineNo, bytes);
  }
  if (!cols) throw new Error(`${file} is empty: expected a header line such as "time,topic,value"`);
}

function columnsOf(header: string[], file: string, topicFlag: string | undefined): Columns {
  const at = (name: string) => {
    const i = header.findIndex((h) => h.trim().toLowerCase() === name);
    return i < 0 ? undefined : i;
  };
  const time = at('time');
  if (time === undefined) throw new Error(`${file}: the header line has no "time" column (got "${header.join(',')}")`);
  const topic = at('topic');
  if (topic === undefined && !topicFlag) throw new Error(`${file}: there is no "topic" column; name the topic with --topic`);
  const value = at('value');
  const fields = ['count', 'sum', 'min', 'max', 'last'].map(at);
  if (value !== undefined) return { time, topic, value };
  if (fields.every((f) => f !== undefined)) return { time, topic, fields: fields as Columns['fields'] };
  throw new Error(`${file}: the header line needs a "value" column, or all of count,sum,min,max,last (got "${header.join(',')}")`);
}

interface ParsedRow {
  topic: string;
  timeMs: number;
  value?: number;
  slot?: SlotAggregate;
}

function parseRow(row: string[], cols: Columns, lineNo: number, file: string, topicFlag: string | undefined): ParsedRow {
  const where = `${file}:${lineNo}`;
  const cell = (i: number) => row[i]?.trim() ?? '';
  const text = cell(cols.time);
  const timeMs = /^\d+(\.\d+)?$/.test(text) ? Number(text) * 1000 : parseRfc3339(text);
  if (timeMs === undefined) throw new Error(`${where}: time must be an RFC 3339 time or Unix seconds, got "${text}"`);
  const topic = topicFlag ?? cell(cols.topic!);
  if (!topic || isGlob(topic)) throw new Error(`${where}: topic must name one metric, got "${topic}"`);
  const num = (i: number, name: string) => {
    const t = cell(i);
    const n = t === '' ? NaN : Number(t);
    if (!Number.isFinite(n)) throw new Error(`${where}: ${name} must be a number, got "${t}"`);
    return n;
  };
  if (cols.value !== undefined) return { topic, timeMs, value: num(cols.value, 'value') };
  const [c, s, mn, mx, l] = cols.fields!;
  const count = num(c, 'count');
  if (!Number.isInteger(count) || count < 1) throw new Error(`${where}: count must be a whole number of at least 1, got "${cell(c)}"`);
  const slot = { timeMs, count, sum: num(s, 'sum'), min: num(mn, 'min'), max: num(mx, 'max'), last: num(l, 'last') };
  if (slot.min > slot.max || slot.last < slot.min || slot.last > slot.max) throw new Error(`${where}: needs min <= last <= max`);
  return { topic, timeMs, slot };
}

/** Splits one CSV line (RFC 4180 quoting, no line breaks inside cells). */
function splitCsv(line: string): string[] {
  if (!line.includes('"')) return line.split(',');
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

/** A progress line on stderr: rewritten in place on a terminal, one line every few seconds otherwise. */
class Progress {
  private lastShown = 0;
  private shown = false;

  constructor(
    private readonly out: Writable & { isTTY?: boolean },
    private readonly size: number,
  ) {}

  show(bytes: number, rows: number): void {
    const now = Date.now();
    if (now - this.lastShown < (this.out.isTTY ? 200 : 5000)) return;
    this.lastShown = now;
    const pct = this.size > 0 ? Math.min(100, Math.floor((bytes / this.size) * 100)) : 100;
    this.out.write(`${this.out.isTTY ? '\r' : ''}importing: ${rows.toLocaleString('en')} lines (${pct}%)${this.out.isTTY ? '' : '\n'}`);
    this.shown = true;
  }

  done(rows: number, lines: number, topics: string[]): void {
    if (this.shown && this.out.isTTY) this.out.write('\n');
    this.out.write(`imported ${rows.toLocaleString('en')} of ${lines.toLocaleString('en')} lines into ${topics.join(', ')}\n`);
  }
}
