/**
 * The kill -9 campaign: the real CLI and server, started as child processes on one data dir
 * and killed with SIGKILL at random moments while they record live readings, backfill,
 * take writes of a setting and import a CSV file. After every kill the database must open
 * (SQLite's integrity check, history with nothing damaged) and the period energy totals
 * must not have gone back; at the end every backfilled and imported slot holds exactly one
 * reading (nothing doubled by a resumed backfill or an import run again).
 *
 * Kills are triggered by events, not timers: after a random number of changes to the
 * database's WAL file, i.e. at a random point of the writes under way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { HistoryStore, openDatabase, type Db } from '@heliograph/core/testing';
import { systemClock } from '@heliograph/core/clock';
import { basicAuth } from '@heliograph/core/test/helpers/basic-auth';
import { MAIN } from '@heliograph/core/test/helpers/paths';

const PASSWORD = 'chaos chaos chaos';
const FLUSH_MS = 500;
export const IMPORT_TOPIC = 'chaos_1/imported';
const IMPORT_START = Date.parse('2024-03-01T00:00:00Z');

export interface CampaignOptions {
  dir: string;
  kills: number;
  /** Deterministic choices: a seeded random source. */
  random: () => number;
  /** Readings in the import file (one per 10 s). */
  importReadings: number;
  log: (line: string) => void;
}

export interface CampaignResult {
  kills: number;
  serveKills: number;
  importKills: number;
  /** Readings of the import topic stored at the end, and their sum, against the file's. */
  imported: { count: number; sum: number; expectedCount: number; expectedSum: number };
  /**
   * The largest gap, over the serve kills, between the kill and the newest 10-s slot of
   * live history that survived it (a figure: at most about one flush interval plus a slot).
   */
  maxHistoryLagMs: number;
  /** Hours of the backfill whose count is not 360 (one reading per slot). */
  badBackfillHours: string[];
  backfillHours: number;
}

/** Runs the campaign; throws on the first broken promise (a database that does not open, totals gone back). */
export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const { dir, random, log } = options;
  const dataDir = join(dir, 'data');
  const pluginsFile = join(dir, 'plugins.json');
  writeFileSync(
    pluginsFile,
    JSON.stringify({
      plugins: [
        {
          id: 'sim',
          plugin: 'simulator',
          devices: ['inverter_1', 'battery_1'],
          config: { backfill_days: 1, pollIntervalMs: 1000, demoForecast: false, demoPrices: false },
        },
      ],
    }),
  );
  const csv = join(dir, 'import.csv');
  let expectedSum = 0;
  const lines = ['time,topic,value'];
  for (let i = 0; i < options.importReadings; i++) {
    const value = (i % 97) / 10;
    expectedSum += i % 97;
    lines.push(`${(IMPORT_START + i * 10_000) / 1000},${IMPORT_TOPIC},${value}`);
  }
  writeFileSync(csv, lines.join('\n') + '\n');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ history: { flushIntervalMs: FLUSH_MS } }));

  let serveKills = 0;
  let importKills = 0;
  let lastTotals = new Map<string, number>();
  let maxHistoryLagMs = 0;
  for (let k = 0; k < options.kills; k++) {
    const kind = random() < 0.6 ? 'serve' : 'import';
    // Serve rounds run a few seconds at least, so energy totals have something to keep.
    const events = kind === 'serve' ? 4 + Math.floor(random() * 12) : 2 + Math.floor(random() * 10);
    if (kind === 'serve') {
      const killedAt = await serveAndKill(dataDir, pluginsFile, events);
      serveKills++;
      const newest = await newestLiveSlot(dataDir, killedAt);
      if (newest !== undefined) maxHistoryLagMs = Math.max(maxHistoryLagMs, killedAt - newest);
    } else {
      await importAndKill(dataDir, csv, events);
      importKills++;
    }
    const totals = await verifyDatabase(dataDir);
    for (const [name, kwh] of lastTotals) {
      const now = totals.get(name);
      if (now === undefined && [...totals.keys()].some((key) => key.startsWith(name.split('@')[0]!))) continue;
      if (now === undefined || now + 1e-9 < kwh)
        throw new Error(`after kill ${k + 1} (${kind}): energy total ${name} went back from ${kwh} to ${now}`);
    }
    lastTotals = totals;
    log(
      `kill ${k + 1}/${options.kills} (${kind}, after ${events} WAL writes): database opens, load energy ${[...totals].find(([key]) => key.startsWith('load_energy@'))?.[1]?.toFixed(6) ?? 'not saved yet'} kWh`,
    );
  }

  // The end: an import and a backfill that run to completion over what the kills left.
  const code = await run(['history', 'import', csv, '--data', dataDir]);
  if (code !== 0) throw new Error(`the final import exited ${code}`);
  if (!(await backfillDone(dataDir))) await serveUntil(dataDir, pluginsFile, /backfill complete/);
  return {
    kills: options.kills,
    serveKills,
    importKills,
    maxHistoryLagMs,
    ...(await countResults(dataDir, options.importReadings, expectedSum / 10)),
  };
}

function child(args: string[], extraEnv: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [MAIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      HELIOGRAPH_MDNS: '0',
      HELIOGRAPH_PASSWORD: PASSWORD,
      HELIOGRAPH_LOG_LEVEL: 'info',
      ...extraEnv,
    },
  });
}

async function run(args: string[]): Promise<number> {
  const c = child(args);
  c.stdout!.resume();
  c.stderr!.resume();
  const [code] = (await once(c, 'exit')) as [number | null, NodeJS.Signals | null];
  return code as number;
}

/** Resolves after `n` changes to the WAL file (or when the process ends first). */
function walWrites(dataDir: string, n: number, ended: Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const watcher = watch(dataDir, (_event, name) => {
      if (name !== 'heliograph.db-wal' || ++seen < n) return;
      watcher.close();
      resolve();
    });
    void ended.then(() => {
      watcher.close();
      resolve();
    });
  });
}

async function killAfter(c: ChildProcess, dataDir: string, events: number): Promise<void> {
  const exited = once(c, 'exit');
  await walWrites(dataDir, events, exited);
  c.kill('SIGKILL');
  await exited;
}

async function importAndKill(dataDir: string, csv: string, events: number): Promise<void> {
  const c = child(['history', 'import', csv, '--data', dataDir]);
  c.stdout!.resume();
  c.stderr!.resume();
  await killAfter(c, dataDir, events);
}

/** Starts the server, writes a setting in a loop while it records and backfills, kills it. */
/** Kills the server at a random point of its writes; resolves with the time of the kill. */
async function serveAndKill(dataDir: string, pluginsFile: string, events: number): Promise<number> {
  const c = child(['serve', '--host', '127.0.0.1', '--port', '0', '--data', dataDir, '--plugins', pluginsFile]);
  c.stderr!.resume();
  const exited = once(c, 'exit');
  const url = await listeningUrl(c);
  let stop = false;
  const writer = (async () => {
    const auth = basicAuth(PASSWORD);
    for (let i = 0; !stop && i < 10_000; i++) {
      try {
        const res = await fetch(`${url}/api/v1/metrics`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: JSON.stringify({
            topic: 'inverter_1/output_source_priority',
            value: i % 2 ? 'Solar first' : 'Utility first',
          }),
        });
        await res.arrayBuffer();
        if (res.status === 429) await new Promise((r) => setTimeout(r, 200));
      } catch {
        return; // killed
      }
    }
  })();
  if (url) await walWrites(dataDir, events, exited);
  const killedAt = Date.now();
  c.kill('SIGKILL');
  await exited;
  stop = true;
  await writer;
  return killedAt;
}

/** The history store of a killed run, opened for reading only: nothing is flushed or evicted. */
function openReadOnlyHistory(db: Db): Promise<HistoryStore> {
  return HistoryStore.open({
    db,
    clock: systemClock,
    config: { retentionDays: 3650, diskBudgetMb: 2048, flushIntervalMs: FLUSH_MS },
    readOnly: true,
    autoFlush: false,
  });
}

/** End (Unix ms) of the newest slot of live history kept for inverter_1/pv_power in the minute before a kill. */
async function newestLiveSlot(dataDir: string, killedAt: number): Promise<number | undefined> {
  const db = await openDatabase(join(dataDir, 'heliograph.db'));
  try {
    const store = await openReadOnlyHistory(db);
    const page = await store.query('inverter_1/pv_power', {
      fromMs: killedAt - 60_000,
      toMs: killedAt + 10_000,
      groupMs: 10_000,
      agg: 'last',
    });
    await store.close();
    let newest: number | undefined;
    for (let b = 0; b < page.buckets.n; b++)
      if (page.buckets.count[b]! > 0) newest = (page.buckets.start + (b + 1) * 10) * 1000;
    return newest;
  } finally {
    await db.close();
  }
}

async function listeningUrl(c: ChildProcess): Promise<string | undefined> {
  for await (const line of createInterface({ input: c.stdout! })) {
    const m = /^listening on (\S+)/.exec(line);
    if (m) {
      c.stdout!.resume();
      return m[1]!.replace('0.0.0.0', '127.0.0.1');
    }
  }
  return undefined;
}

/** Runs the server until a log line matches (or the backfill was already done), then stops it with SIGTERM. */
async function serveUntil(dataDir: string, pluginsFile: string, line: RegExp): Promise<void> {
  const c = child(['serve', '--host', '127.0.0.1', '--port', '0', '--data', dataDir, '--plugins', pluginsFile]);
  c.stdout!.resume();
  const exited = once(c, 'exit');
  for await (const text of createInterface({ input: c.stderr! })) if (line.test(text)) break;
  c.kill('SIGTERM');
  await exited;
}

async function backfillDone(dataDir: string): Promise<boolean> {
  const db = await openDatabase(join(dataDir, 'heliograph.db'));
  try {
    const row = await db
      .get<{ value: string }>("SELECT value FROM plugin_store WHERE instance = 'sim' AND key = 'backfill'")
      .catch(() => undefined);
    return row !== undefined && (JSON.parse(row.value) as { done?: boolean }).done === true;
  } finally {
    await db.close();
  }
}

/** Opens the database as a restart would: integrity, history without damage; returns the saved energy totals. */
async function verifyDatabase(dataDir: string): Promise<Map<string, number>> {
  const db = await openDatabase(join(dataDir, 'heliograph.db'));
  try {
    const integrity = await db.get<{ integrity_check: string }>('PRAGMA integrity_check');
    if (integrity?.integrity_check !== 'ok')
      throw new Error(`the database does not pass SQLite's integrity check: ${integrity?.integrity_check}`);
    const hasHistory = await db.get<Record<string, unknown>>(
      "SELECT 1 FROM sqlite_master WHERE name = 'history_blocks'",
    );
    if (hasHistory) {
      const store = await openReadOnlyHistory(db);
      const health = store.healthReport;
      await store.close();
      if (health.problems.length > 0)
        throw new Error(`history found damage after a kill: ${health.problems.join('; ')}`);
    }
    const hasTotals = await db.get<Record<string, unknown>>("SELECT 1 FROM sqlite_master WHERE name = 'energy_totals'");
    const rows = hasTotals
      ? await db.all<Array<{ name: string; kwh: number; period_start: number }>>(
          'SELECT name, kwh, period_start FROM energy_totals',
        )
      : [];
    // Keyed by period: a total starts again from 0 in a new period (midnight), rightly.
    return new Map(rows.map((r) => [`${r.name}@${r.period_start}`, r.kwh]));
  } finally {
    await db.close();
  }
}

async function countResults(dataDir: string, expectedCount: number, expectedSum: number) {
  const db = await openDatabase(join(dataDir, 'heliograph.db'));
  try {
    const store = await openReadOnlyHistory(db);
    const imp = await store.query(IMPORT_TOPIC, {
      fromMs: IMPORT_START - 86_400_000 * 400,
      toMs: IMPORT_START + 86_400_000 * 400,
      groupMs: 1000 * 86_400_000, // one bucket of 1000 days: the whole range
      agg: 'sum',
    });
    let count = 0;
    let sum = 0;
    for (let b = 0; b < imp.buckets.n; b++) {
      count += imp.buckets.count[b]!;
      if (imp.buckets.count[b]! > 0) sum += imp.buckets.value(b, 'sum');
    }
    // The backfill: one reading per 10-s slot in every whole hour before the first start.
    const progress = await db
      .get<{ value: string }>("SELECT value FROM plugin_store WHERE instance = 'sim' AND key = 'backfill'")
      .catch(() => undefined);
    const plan = progress ? (JSON.parse(progress.value) as { from: number; to: number }) : undefined;
    const badBackfillHours: string[] = [];
    let backfillHours = 0;
    if (plan) {
      const from = Math.ceil(plan.from / 3_600_000) * 3_600_000;
      const to = Math.floor(plan.to / 3_600_000) * 3_600_000;
      const hours = await store.query('inverter_1/pv_power', {
        fromMs: from,
        toMs: to,
        groupMs: 3_600_000,
        agg: 'sum',
      });
      for (let b = 0; b < hours.buckets.n; b++) {
        backfillHours++;
        if (hours.buckets.count[b] !== 360)
          badBackfillHours.push(
            `${new Date((hours.buckets.start + b * 3600) * 1000).toISOString()}: ${hours.buckets.count[b]}`,
          );
      }
    }
    await store.close();
    return {
      imported: {
        count,
        sum: Math.round(sum * 10) / 10,
        expectedCount,
        expectedSum: Math.round(expectedSum * 10) / 10,
      },
      badBackfillHours,
      backfillHours,
    };
  } finally {
    await db.close();
  }
}
