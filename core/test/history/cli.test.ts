import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { runHistoryCommand } from '../../src/cli/history.js';
import { loadConfig } from '../../src/config/load.js';
import type { Agg } from '../../src/history/slots.js';
import { MAIN } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp.js';
import { allPages, ManualClock, meta, openStore, random, readings } from './support.js';
import { within } from '../helpers/deadline.js';

const NOW = Date.parse('2025-06-05T08:09:10Z');
const TOPIC = 'inverter_1/pv_power';
const AGGS: Agg[] = ['mean', 'max', 'min', 'sum', 'last'];

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** A reader that is always behind: every write asks the writer to wait for 'drain'. */
class SlowReader extends Collect {
  writes = 0;
  constructor() {
    super({ highWaterMark: 1 });
  }
  override _write(chunk: Buffer, enc: string, done: () => void): void {
    this.writes++;
    setImmediate(() => super._write(chunk, enc, done));
  }
}

async function run(args: string[], dataDir: string, clock: ManualClock, stdout = new Collect()) {
  const stderr = new Collect();
  const code = await runHistoryCommand(args, { dataDir, config: loadConfig(), stdout, stderr, clock });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe('heliograph history export / import', () => {
  const clock = new ManualClock(NOW);
  const source = tempDir('heliograph-export-');

  it('round-trips: export, import into an empty data dir, and every answer is the same', async () => {
    const opened = await openStore(join(source, 'heliograph.db'), clock);
    const rnd = random(5);
    // Several readings per slot in places, so counts, minima and maxima must survive too.
    const data = readings(rnd, NOW - 4 * 86_400_000, NOW - 5 * 60_000, () => 2);
    await opened.store.recordPast(
      meta(TOPIC),
      data.map((r) => [r.t, r.units / 100] as const),
    );
    const live = opened.store.topic(meta(TOPIC));
    opened.store.record(live, NOW - 1000, 12.34);
    await opened.close();

    const exported = await run(['export', '--topic', TOPIC], source, clock);
    assert.equal(exported.code, 0, exported.stderr);
    const lines = exported.stdout.trimEnd().split('\n');
    assert.equal(lines[0], 'time,topic,count,sum,min,max,last');
    assert.match(
      lines[1]!,
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d0Z,inverter_1\/pv_power,\d+,-?[\d.]+,-?[\d.]+,-?[\d.]+,-?[\d.]+$/,
    );
    const csv = join(tempDir('heliograph-csv-'), 'pv.csv');
    writeFileSync(csv, exported.stdout);

    const target = tempDir('heliograph-import-');
    const imported = await run(['import', csv], target, clock);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(
      imported.stderr,
      new RegExp(
        `imported ${(lines.length - 1).toLocaleString('en')} of ${(lines.length - 1).toLocaleString('en')} lines into ${TOPIC}`,
      ),
    );

    const a = await openStore(join(source, 'heliograph.db'), clock);
    const b = await openStore(join(target, 'heliograph.db'), clock);
    const q = { fromMs: NOW - 5 * 86_400_000, toMs: NOW };
    for (const groupS of [10, 90, 3600, 86400]) {
      for (const agg of AGGS) {
        const want = await allPages(a.store, TOPIC, { ...q, groupMs: groupS * 1000, agg });
        assert.ok(want.length > 0);
        assert.deepEqual(
          await allPages(b.store, TOPIC, { ...q, groupMs: groupS * 1000, agg }),
          want,
          `${groupS}s ${agg}`,
        );
      }
    }
    await a.close();
    await b.close();
  });

  it('waits for a slow reader without piling up listeners on it', async () => {
    const reader = new SlowReader();
    const exported = await run(['export', '--topic', TOPIC], source, clock, reader);
    assert.equal(exported.code, 0, exported.stderr);
    assert.ok(reader.writes > 5, `the header and many pages, each waited for (${reader.writes} writes)`);
    assert.equal(reader.listenerCount('error'), 0);
    assert.equal(reader.listenerCount('drain'), 0);
  });

  it('exports one aggregate per line with --agg, which imports back as readings under --topic', async () => {
    const exported = await run(
      [
        'export',
        '--topic',
        TOPIC,
        '--group-by',
        '1h',
        '--agg',
        'max',
        '--from',
        '2025-06-03T00:00:00+02:00',
        '--to',
        '2025-06-04T00:00:00Z',
      ],
      source,
      clock,
    );
    assert.equal(exported.code, 0, exported.stderr);
    const lines = exported.stdout.trimEnd().split('\n');
    assert.equal(lines[0], 'time,topic,value');
    assert.match(lines[1]!, /^2025-06-02T22:00:00Z,inverter_1\/pv_power,-?[\d.]+$/);
    const csv = join(tempDir('heliograph-csv-'), 'max.csv');
    writeFileSync(csv, exported.stdout);

    const target = tempDir('heliograph-import-');
    const imported = await run(['import', csv, '--topic', 'total/pv_power_hourly_max'], target, clock);
    assert.equal(imported.code, 0, imported.stderr);
    const b = await openStore(join(target, 'heliograph.db'), clock);
    const points = await allPages(b.store, 'total/pv_power_hourly_max', {
      fromMs: Date.parse('2025-06-02T00:00:00Z'),
      toMs: NOW,
      groupMs: 3_600_000,
      agg: 'mean',
    });
    assert.deepEqual(
      points.map(([t, v]) => `${new Date(t * 1000).toISOString().replace('.000Z', 'Z')},inverter_1/pv_power,${v}`),
      lines.slice(1),
    );
    await b.close();
  });

  it('imports nothing from a file with a bad line, and says which line', async () => {
    const csv = join(tempDir('heliograph-csv-'), 'bad.csv');
    writeFileSync(csv, 'time,topic,value\n2025-06-01T00:00:00Z,total/x,1\n2025-06-01T00:00:10Z,total/x,abc\n');
    const target = tempDir('heliograph-import-');
    const result = await run(['import', csv], target, clock);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /bad\.csv:3: value must be a number, got "abc"/);
    const b = await openStore(join(target, 'heliograph.db'), clock);
    assert.deepEqual(b.store.topics(), []);
    await b.close();
  });

  it('refuses battery topics, unknown flags, and importing while another process writes history', async () => {
    const csv = join(tempDir('heliograph-csv-'), 'battery.csv');
    writeFileSync(csv, 'time,value\n1748736000,52.1\n');
    const target = tempDir('heliograph-import-');
    const battery = await run(['import', csv, '--topic', 'battery_1/voltage'], target, clock);
    assert.equal(battery.code, 1);
    assert.match(battery.stderr, /battery metrics are not recorded in history/);

    assert.equal((await run(['export'], target, clock)).code, 2);
    assert.match(
      (await run(['export', '--topic', TOPIC, '--agg', 'avg'], target, clock)).stderr,
      /--agg must be one of mean, max, min, sum, last/,
    );
    assert.match(
      (await run(['export', '--topic', 'total/none'], source, clock)).stderr,
      /no history is kept for "total\/none"; topics with history: inverter_1\/pv_power/,
    );
    assert.equal((await run(['frobnicate'], target, clock)).code, 2);

    // Our parent process is alive on this host: as if a server held the database.
    const held = await openStore(join(target, 'heliograph.db'), clock);
    await held.db.run(
      'INSERT OR REPLACE INTO history_owner (id, pid, host, since) VALUES (1, ?, ?, ?)',
      process.ppid,
      hostname(),
      Date.now(),
    );
    await held.db.close();
    writeFileSync(csv, 'time,value\n1748736000,52.1\n');
    const busy = await run(['import', csv, '--topic', 'total/pv_power'], target, clock);
    assert.equal(busy.code, 1);
    assert.match(busy.stderr, new RegExp(`history is being written by process ${process.ppid} .*stop it first`));
  });

  it('reads the data dir given with --data when run as the heliograph command', async () => {
    const cwd = tempDir('heliograph-cwd-');
    const child = spawn(process.execPath, [MAIN, 'history', 'export', '--topic', 'total/none', '--data', source], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await within(
      new Promise<number | null>((resolve) => child.on('exit', resolve)),
      'exit of `heliograph history export`',
      60_000,
    );
    assert.equal(code, 1);
    assert.match(stderr, /topics with history: inverter_1\/pv_power/, 'the history of --data, not of ./data');
    assert.equal(existsSync(join(cwd, 'data')), false, 'no ./data is made');
  });
});
