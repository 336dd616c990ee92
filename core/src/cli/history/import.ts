/**
 * `heliograph history import FILE.csv`: reads either form export writes (columns in any
 * order; `topic` may instead come from --topic, which also renames on the way in). A
 * `value` line is one reading; a line with the five fields is a slot as exported. `time`
 * may also be Unix seconds, as other tools write.
 *
 * Import is idempotent: a slot the file holds replaces what history held for it (PastMarks),
 * so importing a file twice, or again after an import was killed part-way, leaves exactly
 * one file's worth. A killed import is resumed by running it again.
 */
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { PastMarks } from '../../history/past-marks.js';
import type { SlotAggregate, TopicHandle } from '../../history/store.js';
import { BATTERY_TOPIC, metaFromTopic } from '../../history/topic-record.js';
import { parseRfc3339 } from '../../rfc3339.js';
import { isGlob } from '../../topics/glob.js';
import { splitCsv } from './csv.js';
import { openStore, parse, UsageError, USAGE, type HistoryCommandOptions } from './common.js';
import { Progress } from './progress.js';

interface Columns {
  time: number;
  topic?: number;
  value?: number;
  fields?: [count: number, sum: number, min: number, max: number, last: number];
}

export async function importCsv(rest: string[], options: HistoryCommandOptions): Promise<number> {
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
    if (BATTERY_TOPIC.test(topic))
      throw new Error(`${file}: ${topic}: battery metrics are not recorded in history, so they cannot be imported`);
  }

  const { db, store } = await openStore(options, false);
  const progress = new Progress(stderr, size);
  try {
    const marks = new PastMarks();
    const slots = new Map<string, SlotAggregate[]>();
    const flushSlots = async () => {
      for (const [topic, list] of slots)
        await store.importSlots({ topic, ...(store.describe(topic) ?? metaFromTopic(topic)) }, list, marks);
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
        store.recordPastReading(handle(r.topic), marks, r.timeMs, r.value);
      } else {
        let list = slots.get(r.topic);
        if (!list) slots.set(r.topic, (list = []));
        list.push(r.slot!);
      }
      if (++done % 50_000 === 0) {
        await flushSlots();
        await store.flushIfFull();
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
  if (topic === undefined && !topicFlag)
    throw new Error(`${file}: there is no "topic" column; name the topic with --topic`);
  const value = at('value');
  const fields = ['count', 'sum', 'min', 'max', 'last'].map(at);
  if (value !== undefined) return { time, topic, value };
  if (fields.every((f) => f !== undefined)) return { time, topic, fields: fields as Columns['fields'] };
  throw new Error(
    `${file}: the header line needs a "value" column, or all of count,sum,min,max,last (got "${header.join(',')}")`,
  );
}

interface ParsedRow {
  topic: string;
  timeMs: number;
  value?: number;
  slot?: SlotAggregate;
}

function parseRow(
  row: string[],
  cols: Columns,
  lineNo: number,
  file: string,
  topicFlag: string | undefined,
): ParsedRow {
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
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`${where}: count must be a whole number of at least 1, got "${cell(c)}"`);
  const slot = { timeMs, count, sum: num(s, 'sum'), min: num(mn, 'min'), max: num(mx, 'max'), last: num(l, 'last') };
  if (slot.min > slot.max || slot.last < slot.min || slot.last > slot.max)
    throw new Error(`${where}: needs min <= last <= max`);
  return { topic, timeMs, slot };
}
