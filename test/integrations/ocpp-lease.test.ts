// A profile is a lease on the charger (issue 42): with Heliograph killed (kill -9) while a
// profile holds the car at 6 A, the charger keeps it until the profile ends and then charges
// at its own default; the next start clears what the last run left. A charger that stops
// reporting is shown so, with the reason. The server runs as a child process (it is killed);
// the emulated charge point in this process, its clock moved as the battery emulators' are.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { jsonBody } from '../helpers/server.js';
import { within } from '../helpers/deadline.js';
import { chargePoint, ocppEntry, PASSWORD_1, pointWhen, valueWhen } from './ocpp-helpers.js';

const MINUTE = 60_000;

async function write(server: ChildServer, topic: string, value: string): Promise<void> {
  const answer = await server.api('/api/v1/metrics', jsonBody({ topic, value }));
  assert.equal(answer.status, 200, `${topic} = ${value}: ${await answer.text()}`);
}

async function audited(server: ChildServer): Promise<string[]> {
  const entries = (await (await server.api('/api/v1/audit?limit=1000')).json()) as Array<{
    topic: string;
    new_value: string;
    via: string;
    result: string;
  }>;
  return entries.filter((e) => e.via === 'ocpp').map((e) => `${e.topic}=${e.new_value} ${e.result}`);
}

test('kill -9 while a profile holds 6 A: the charger keeps it to its end, then charges at its default', async () => {
  const server = await startChildServer({
    plugins: [ocppEntry({ heartbeatIntervalS: 1 }, ['charger_1'])],
    bundled: ['ocpp'],
    env: { HELIOGRAPH_MDNS: '0' },
  });
  after(() => {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  });
  const point = await chargePoint({
    url: `${server.url.replace(/^http/, 'ws')}/ocpp/CP1`,
    password: PASSWORD_1,
    defaultCurrentA: 16,
    meterIntervalS: 1,
  });
  await pointWhen(point, (p) => p.bootStatus === 'Accepted', 'boot');
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

test('a charger that stops reporting shows as offline with the reason, and back when it reports again', async () => {
  const server = await startChildServer({
    plugins: [ocppEntry({ heartbeatIntervalS: 1 }, ['charger_1'])],
    bundled: ['ocpp'],
    env: { HELIOGRAPH_MDNS: '0' },
  });
  after(() => {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  });
  const point = await chargePoint({
    url: `${server.url.replace(/^http/, 'ws')}/ocpp/CP1`,
    password: PASSWORD_1,
    meterIntervalS: 1,
  });
  await pointWhen(point, (p) => p.bootStatus === 'Accepted', 'boot');
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
