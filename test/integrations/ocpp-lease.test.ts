// A profile is a lease on the charger (issue 42): with Heliograph killed (kill -9) while a
// profile holds the car at 6 A, the charger keeps it until the profile ends and then charges
// at its own default; the next start clears what the last run left. A SIGTERM clears the
// profile before the exit, so the charger is at its own default at once. A charger that stops
// reporting is shown so, with the reason. The server runs as a child process (it is killed);
// the emulated charge point in this process, its clock moved as the battery emulators' are.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { jsonBody } from '../helpers/server.js';
import { pollUntil, within } from '../helpers/deadline.js';
import { bootedCp1, ocppEntry, pointWhen, valueWhen } from './ocpp-helpers.js';

const MINUTE = 60_000;

/** A plugins.json entry. */
type Entry = { plugin: string } & Record<string, unknown>;

/**
 * The service in a child process, killed after the test if still running: by default charger_1
 * alone (heartbeats every second).
 */
async function startServer(
  plugins: Entry[] = [ocppEntry({ heartbeatIntervalS: 1 }, ['charger_1']) as Entry],
  config?: Record<string, unknown>,
): Promise<ChildServer> {
  const server = await startChildServer({
    plugins,
    bundled: plugins.map((p) => p.plugin),
    env: { HELIOGRAPH_MDNS: '0' },
    ...(config ? { config } : {}),
  });
  after(() => {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  });
  // The service listens before its plugins have started: a charger dialling in before the
  // ocpp plugin takes its path would get a 404.
  await pollUntil(
    async () => {
      const list = (await (await server.api('/api/v1/plugins')).json()) as Array<{ id: string; state: string }>;
      return { done: list.every((p) => p.state === 'running'), seen: list.map((p) => `${p.id} ${p.state}`) };
    },
    'every plugin instance running',
    { ms: 30_000 },
  );
  return server;
}

async function write(server: ChildServer, topic: string, value: string): Promise<void> {
  const answer = await server.api('/api/v1/metrics', jsonBody({ topic, value }));
  assert.equal(answer.status, 200, `${topic} = ${value}: ${await answer.text()}`);
}

interface AuditEntry {
  time: string;
  topic: string;
  new_value: string;
  via: string;
  result: string;
}

async function audited(server: ChildServer): Promise<string[]> {
  const entries = (await (await server.api('/api/v1/audit?limit=1000')).json()) as AuditEntry[];
  return entries.filter((e) => e.via === 'ocpp').map((e) => `${e.topic}=${e.new_value} ${e.result}`);
}

test('kill -9 while a profile holds 6 A: the charger keeps it to its end, then charges at its default', async () => {
  const server = await startServer();
  const point = await bootedCp1(server.url, { defaultCurrentA: 16, meterIntervalS: 1 });
  await point.plugIn();
  await write(server, 'charger_1/mode', 'min+pv');
  await pointWhen(point, (p) => p.offered().currentA === 6 && p.powerW === 6 * 3 * 230, 'charging at 6 A (min+pv)');
  const [held] = point.profiles.list();
  const leaseMs = Date.parse(held!.profile.validTo!) - point.now();
  assert.ok(leaseMs > 0 && leaseMs <= 30 * MINUTE, `the profile ends on the charger within 30 min: ${leaseMs} ms`);
  assert.equal(held!.profile.chargingSchedule.duration, 30 * 60);

  server.child.kill('SIGKILL');
  await within(server.exited, 'exit after SIGKILL');
  point.tick();
  assert.equal(point.offered().currentA, 6, 'the lease holds while it runs, Heliograph or not');
  // 31 minutes on, on the charger's clock: the profile has ended, the charger is back at its default.
  point.clockOffsetMs += 31 * MINUTE;
  await pointWhen(point, (p) => p.offered().source === 'default' && p.powerW === 16 * 3 * 230, 'the default 16 A');

  // The next start clears what the last run left and decides afresh (min+pv was kept: 6 A).
  await server.restart();
  await pointWhen(
    point,
    (p) => p.offered().currentA === 6 && p.offered().source !== 'default',
    '6 A again after the restart',
    30_000,
  );
  const commands = await audited(server);
  assert.ok(commands.filter((c) => c === 'charger_1/clear_profiles=Clear ok').length >= 2, commands.join('\n'));
  assert.ok(commands.includes('charger_1/current_limit=6 ok'), commands.join('\n'));
});

test('SIGTERM while a profile holds the car: the stop clears it, the charger is at its own default, the exit is 0', async () => {
  const server = await startServer();
  // The charger's own default (32 A) is not what Heliograph sets (at most its 16 A rating).
  const point = await bootedCp1(server.url, { defaultCurrentA: 32, meterIntervalS: 1 });
  await point.plugIn();
  await write(server, 'charger_1/mode', 'now');
  await pointWhen(
    point,
    (p) => p.offered().source !== 'default' && p.offered().currentA === 16,
    "Heliograph's profile holding 16 A (now)",
  );

  server.child.kill('SIGTERM');
  assert.equal(await within(server.exited, 'the exit after SIGTERM'), 0, 'a clean exit');
  point.tick();
  assert.deepEqual(point.profiles.list(), [], 'no profile of Heliograph left on the charger');
  assert.deepEqual(
    point.offered(),
    { currentA: 32, phases: 3, source: 'default' },
    "the charger's own default at once",
  );

  // The stop's clear is the last command in the audit (newest first; read from the next
  // start, which the charger, closed, does not join).
  await point.close();
  await server.restart();
  const commands = await audited(server);
  assert.equal(commands[0], 'charger_1/clear_profiles=Clear ok', commands.join('\n'));
  assert.ok(commands.includes('charger_1/current_limit=16 ok'), commands.join('\n'));
});

test('SIGTERM while the home battery is held for the car: Normal again before the exit, written by the ocpp plugin', async () => {
  // The demo of the checkout's plugins.json (simulator, planner in dry-run, the demo charger),
  // its car home from an hour ago (UTC) for two hours: charging in planned, no plan, min+pv.
  const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
  const server = await startServer(
    [
      { plugin: 'simulator', id: 'sim', devices: ['inverter_1', 'battery_1'], config: { backfill_days: 0 } },
      { plugin: 'planner', id: 'planner', devices: ['planner_1'], config: { chargers: ['charger_1'] } },
      {
        plugin: 'ocpp',
        id: 'ocpp',
        devices: ['charger_1'],
        config: {
          demoChargePoint: true,
          demoCar: { plugInAt: hhmm(Date.now() - 60 * MINUTE), unplugAt: hhmm(Date.now() + 60 * MINUTE) },
        },
      },
    ],
    { site: { timeZone: 'UTC' } },
  );
  await valueWhen(server, 'inverter_1/battery_control_mode', (v) => v === 'Hold', 'the battery held for the car');

  server.child.kill('SIGTERM');
  assert.equal(await within(server.exited, 'the exit after SIGTERM'), 0, 'a clean exit');
  const exitedAt = Date.now();
  // Read from the next start: the newest battery write before the exit is the ocpp plugin's
  // Normal (not the simulator's own at its stop, which comes only for a battery still forced).
  await server.restart();
  const entries = (await (await server.api('/api/v1/audit?limit=1000')).json()) as AuditEntry[];
  const battery = entries.filter(
    (e) => e.topic === 'inverter_1/battery_control_mode' && Date.parse(e.time) <= exitedAt,
  );
  assert.deepEqual(
    battery.slice(0, 2).map((e) => `${e.new_value} via ${e.via} ${e.result}`),
    ['Normal via ocpp ok', 'Hold via ocpp ok'],
  );
});

test('a charger that stops reporting shows as offline with the reason, and back when it reports again', async () => {
  const server = await startServer();
  const point = await bootedCp1(server.url, { meterIntervalS: 1 });
  await valueWhen(server, 'charger_1/online', (v) => v === true, 'online');
  point.silent = true;
  await valueWhen(server, 'charger_1/status', (v) => v === 'Offline', 'Offline once silent for 3 heartbeats');
  const reason = await valueWhen(
    server,
    'charger_1/reason',
    (v) => /no message from the charger/.test(String(v)),
    'the reason',
  );
  assert.match(String(reason), /3 heartbeat intervals/);
  point.silent = false;
  await valueWhen(server, 'charger_1/online', (v) => v === true, 'online again');

  // A charger that refuses a profile charges by its own default, and the reason says so.
  await point.plugIn();
  point.refuseProfiles = true;
  await write(server, 'charger_1/mode', 'now');
  await valueWhen(
    server,
    'charger_1/reason',
    (v) => /did not take the charging profile .*SetChargingProfile Rejected.*its own default/.test(String(v)),
    'the refusal as the reason',
  );
  assert.equal(point.offered().source, 'default');
  const commands = await audited(server);
  assert.ok(commands.includes('charger_1/current_limit=16 error'), commands.join('\n'));

  // A closed connection is said so too.
  await point.close();
  await valueWhen(server, 'charger_1/reason', (v) => /connection closed/.test(String(v)), 'the closed connection');
});
