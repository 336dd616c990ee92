// One bad row never stops history. Damaged blocks, journal rows and topic
// metas are set aside into history_quarantine (kept), the rest is served, and answers and
// export say which range could not be read instead of reading it as empty.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { runHistoryCommand } from '../../src/cli/history.js';
import { loadConfig } from '../../src/config/load.js';
import { openDatabase } from '../../src/db.js';
import { encodeJournal } from '../../src/history/journal.js';
import { allPages, ManualClock, meta, openStore, tempDbFile } from './support.js';

const NOW = Date.parse('2025-06-05T08:09:10Z');
const DAY = 86_400_000;
const START = Date.parse('2025-06-01T00:00:00Z');
const TOPIC = 'inverter_1/pv_power';

/** Four days of one reading per 10 s, written and closed. */
async function seeded(): Promise<{ file: string; clock: ManualClock; readings: number }> {
  const clock = new ManualClock(NOW);
  const file = tempDbFile();
  const opened = await openStore(file, clock);
  const list: Array<[number, number]> = [];
  for (let t = START; t < START + 4 * DAY; t += 10_000) list.push([t, 100 + ((t / 10_000) % 7)]);
  await opened.store.recordPast(meta(TOPIC), list);
  await opened.close();
  return { file, clock, readings: list.length };
}

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

describe('damaged history', () => {
  it('random bytes in a 10-s block: that day is reported unreadable, the rest is served, hourly answers stay whole, export exits 1', async () => {
    const { file, clock } = await seeded();
    const day2 = (START + DAY) / 1000;
    const db = await openDatabase(file);
    const before = await db.get<{ data: Buffer }>(
      'SELECT data FROM history_blocks WHERE tier = 10 AND start = ?',
      day2,
    );
    assert.ok(before, 'day 2 has a row of its own');
    const garbage = randomBytes(before.data.length);
    await db.run('UPDATE history_blocks SET data = ? WHERE tier = 10 AND start = ?', garbage, day2);
    await db.close();

    const stderr = new Collect();
    const stdout = new Collect();
    const code = await runHistoryCommand(
      [
        'export',
        '--topic',
        TOPIC,
        '--from',
        new Date(START).toISOString(),
        '--to',
        new Date(START + 4 * DAY).toISOString(),
      ],
      {
        dataDir: dirname(file),
        config: loadConfig(),
        stdout,
        stderr,
        clock,
      },
    );
    assert.equal(code, 1, 'export does not exit 0 over unreadable history');
    assert.match(stderr.text, /could not be read for 2025-06-02T00:00:00Z to 2025-06-03T00:00:00Z/);
    assert.equal(
      stdout.text.split('\n').filter((l) => l.startsWith('2025-06-0')).length,
      3 * 8640,
      'the readable days are exported',
    );

    const opened = await openStore(file, clock);
    const page = await opened.store.query(TOPIC, {
      fromMs: START,
      toMs: START + 4 * DAY,
      groupMs: 86_400_000,
      agg: 'mean',
    });
    assert.equal(page.unreadable, undefined, 'day answers come from the day rollup, which is whole');
    const tenS = await opened.store.query(TOPIC, {
      fromMs: START + DAY - 60_000,
      toMs: START + DAY + 60_000,
      groupMs: 10_000,
      agg: 'mean',
    });
    assert.deepEqual(tenS.unreadable, [{ fromMs: START + DAY, toMs: START + DAY + 60_000 }]);
    assert.equal([...tenS.buckets.count].filter((c) => c > 0).length, 6, 'the minute before the damage is served');
    const points = await allPages(opened.store, TOPIC, {
      fromMs: START,
      toMs: START + 4 * DAY,
      groupMs: 3_600_000,
      agg: 'sum',
    });
    assert.equal(points.length, 96);

    // Writing into the damaged day again: the flush sets the row aside and goes on.
    await opened.store.recordPast(meta(TOPIC), [[START + DAY + 5000, 42]]);
    const after = await opened.store.query(TOPIC, {
      fromMs: START + DAY,
      toMs: START + DAY + 10_000,
      groupMs: 10_000,
      agg: 'last',
    });
    assert.equal(after.buckets.value(0, 'last'), 42);
    const kept = await opened.db.all<Array<{ kind: string; data: Buffer }>>(
      'SELECT kind, data FROM history_quarantine',
    );
    assert.deepEqual(
      kept.map((k) => k.kind),
      ['block'],
    );
    assert.deepEqual(kept[0]!.data, garbage, 'the damaged bytes are kept, not deleted');
    assert.equal(opened.store.healthReport.quarantined, 1);
    await opened.close();
  });

  it('a garbage journal row and an unreadable topic meta do not stop the start; both are kept in quarantine', async () => {
    const { file, clock, readings } = await seeded();
    const db = await openDatabase(file);
    await db.run('INSERT INTO history_journal (data) VALUES (?)', randomBytes(300));
    await db.run(
      'INSERT INTO history_journal (data) VALUES (?)',
      encodeJournal([
        { topicId: 1, scale: 0, slots: [{ slot: NOW / 1000 - 10, count: 1, sum: 7, min: 7, max: 7, last: 7 }] },
      ]),
    );
    await db.run("UPDATE history_topics SET meta = '{not json' WHERE topic = ?", TOPIC);
    await db.close();

    const opened = await openStore(file, clock);
    const health = opened.store.healthReport;
    assert.equal(health.quarantined, 2);
    assert.ok(health.problems.some((p) => /journal row \d+ could not be read/.test(p)));
    assert.ok(health.problems.some((p) => /history_topics row 1 \(inverter_1\/pv_power\)/.test(p)));
    assert.equal(opened.store.describe(TOPIC)?.name, 'pv_power', 'a meta made from the topic');
    const page = await opened.store.query(TOPIC, { fromMs: START, toMs: NOW, groupMs: 864_000_000, agg: 'sum' });
    let count = 0;
    for (let b = 0; b < page.buckets.n; b++) count += page.buckets.count[b]!;
    assert.equal(count, readings + 1, 'every stored reading and the good journal row are still there');
    const kinds = (await opened.db.all<Array<{ kind: string }>>('SELECT kind FROM history_quarantine ORDER BY id')).map(
      (r) => r.kind,
    );
    assert.deepEqual(kinds.sort(), ['journal', 'topic-meta']);
    await opened.close();
  });

  it('history check lists a damaged block and exits 1; repair sets it aside, after which check exits 0', async () => {
    const { file, clock } = await seeded();
    const db = await openDatabase(file);
    await db.run('UPDATE history_blocks SET data = ? WHERE tier = 3600', randomBytes(500));
    await db.close();
    const run = async (args: string[]) => {
      const stdout = new Collect();
      const stderr = new Collect();
      const code = await runHistoryCommand(args, {
        dataDir: dirname(file),
        config: loadConfig(),
        stdout,
        stderr,
        clock,
      });
      return { code, out: stdout.text + stderr.text };
    };
    const check = await run(['check']);
    assert.equal(check.code, 1, check.out);
    assert.match(check.out, /damaged: inverter_1\/pv_power 3600-s block from 2025-06-01T00:00:00.000Z/);
    const repair = await run(['repair']);
    assert.equal(repair.code, 0, repair.out);
    assert.match(repair.out, /1 damaged block\(s\) found now/);
    const again = await run(['check']);
    assert.equal(again.code, 0, again.out);
    assert.match(again.out, /set aside earlier \(kept in history_quarantine\): 1 block/);
  });

  it('repair rebuilds a file SQLite finds malformed from what is readable and keeps the damaged file', async () => {
    const { file, clock } = await seeded();
    const db = await openDatabase(file);
    await db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const pages = (await db.get<{ n: number }>('SELECT page_count AS n FROM pragma_page_count'))!.n;
    await db.close();
    // Garbage over one page in the middle of the file: SQLite's own check finds it.
    const { openSync, writeSync, closeSync, readdirSync } = await import('node:fs');
    const fd = openSync(file, 'r+');
    writeSync(fd, randomBytes(4096), 0, 4096, Math.floor(pages / 2) * 4096);
    closeSync(fd);
    const stdout = new Collect();
    const code = await runHistoryCommand(['repair'], {
      dataDir: dirname(file),
      config: loadConfig(),
      stdout,
      stderr: stdout,
      clock,
    });
    assert.equal(code, 0, stdout.text);
    assert.match(stdout.text, /rebuilt the database from what could be read/);
    assert.ok(
      readdirSync(dirname(file)).some((f) => f.startsWith('heliograph.db.damaged-')),
      'the damaged file is kept',
    );
    const check = new Collect();
    assert.equal(
      await runHistoryCommand(['check'], {
        dataDir: dirname(file),
        config: loadConfig(),
        stdout: check,
        stderr: check,
        clock,
      }),
      0,
      check.text,
    );
  });
});
