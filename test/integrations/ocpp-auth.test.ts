// OCPP 1.6J chargers connect to the service's own port at /ocpp/<id> (issue 42): boot and
// authorization (free charging and a local list), and the refusals: an unknown charge point
// id, a wrong password and none at all are answered 401 on the upgrade, with no socket; a
// message that breaks OCPP 1.6's JSON schemas is answered with the CALLERROR they name.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, test } from 'node:test';
import { WebSocket } from 'ws';
import { watchOutput } from '../helpers/child-server.js';
import { pollUntil, within } from '../helpers/deadline.js';
import { jsonBody, MAIN, startTestServer, type TestServer } from '../helpers/server.js';
import {
  basic,
  chargePoint,
  ocppEntry,
  PASSWORD_1,
  PASSWORD_2,
  pointWhen,
  upgradeStatus,
  valueWhen,
} from './ocpp-helpers.js';

async function start(): Promise<TestServer> {
  return startTestServer({ plugins: [ocppEntry()], bundled: ['ocpp'] });
}

async function write(server: TestServer, topic: string, value: string): Promise<void> {
  const answer = await server.api('/api/v1/metrics', jsonBody({ topic, value }));
  assert.equal(answer.status, 200, `${topic} = ${value}: ${await answer.text()}`);
}

const wsUrl = (server: TestServer, id: string) => `${server.url.replace(/^http/, 'ws')}/ocpp/${id}`;

test('a configured charger boots, and the central system starts it clean (audited)', async () => {
  const server = await start();
  const point = await chargePoint({ url: wsUrl(server, 'CP1'), password: PASSWORD_1 });
  await pointWhen(
    point,
    (p) => p.bootStatus === 'Accepted' && p.heartbeatIntervalS === 60,
    'boot accepted, interval 60 s',
  );
  await valueWhen(server, 'charger_1/status', (v) => v === 'Available', 'Available');
  assert.equal(await valueWhen(server, 'charger_1/online', (v) => v === true, 'online'), true);
  // Start clean: Heliograph's profiles of a previous run cleared, the status asked for; both audited.
  const audit = (await (await server.api('/api/v1/audit?limit=100')).json()) as Array<{
    topic: string;
    via: string;
    result: string;
  }>;
  const commands = audit.filter((e) => e.via === 'ocpp').map((e) => `${e.topic} ${e.result}`);
  assert.ok(commands.includes('charger_1/clear_profiles ok'), commands.join(', '));
  assert.ok(commands.includes('charger_1/trigger_message ok'), commands.join(', '));

  // The charger as clients see it: Home Assistant's entities (the MQTT bridge announces
  // exactly these fields) and Prometheus.
  const rows = (await (await server.api('/api/v1/metrics?discovery')).json()) as Array<{
    topic: string;
    platform: string;
    device_class: string | null;
  }>;
  const row = (topic: string) => rows.find((r) => r.topic === topic);
  assert.equal(row('charger_1/mode')?.platform, 'select');
  assert.equal(row('charger_1/allow_battery_to_car')?.platform, 'switch');
  assert.equal(row('charger_1/current_limit')?.platform, 'number');
  assert.equal(row('charger_1/power')?.device_class, 'power');
  assert.equal(row('charger_1/vehicle_soc')?.device_class, 'battery');
  assert.equal(row('charger_1/plan_soc')?.device_class, null, 'a target, not the battery');
  const scrape = await (await server.api('/metrics')).text();
  assert.match(scrape, /heliograph_topic_value\{topic="charger_1\/active_phases",device="charger_1",unit=""\} 3/);
});

test('free charging accepts any tag; a local list only its own', async () => {
  const server = await start();
  const free = await chargePoint({ url: wsUrl(server, 'CP1'), password: PASSWORD_1, authorizeFirst: true });
  await pointWhen(free, (p) => p.bootStatus === 'Accepted', 'CP1 booted');
  await free.plugIn('ANY-TAG');
  assert.equal(free.lastAuthorization, 'Accepted');
  assert.notEqual(free.transactionId, null);
  await valueWhen(server, 'charger_1/car_connected', (v) => v === true, 'a car');
  // The owner's commands reach the charger: stop the session, take it out of service and back.
  const tx = free.transactionId;
  await write(server, 'charger_1/transaction', 'Stop');
  await pointWhen(free, (p) => p.transactionId === null && p.status === 'Finishing', 'RemoteStopTransaction');
  await write(server, 'charger_1/availability', 'Inoperative');
  await pointWhen(free, (p) => p.status === 'Unavailable', 'ChangeAvailability Inoperative');
  await write(server, 'charger_1/availability', 'Operative');
  await write(server, 'charger_1/transaction', 'Start');
  await pointWhen(free, (p) => p.transactionId !== null && p.transactionId !== tx, 'RemoteStartTransaction');

  const listed = await chargePoint({
    url: wsUrl(server, 'CP2'),
    password: PASSWORD_2,
    authorizeFirst: true,
    phases: 1,
  });
  await pointWhen(listed, (p) => p.bootStatus === 'Accepted', 'CP2 booted');
  await listed.plugIn('TAG-BAD');
  assert.equal(listed.lastAuthorization, 'Invalid', 'Authorize of a tag not on the list');
  assert.equal(listed.transactionId, null);
  await listed.unplug();
  await listed.plugIn('TAG-OK');
  assert.equal(listed.lastAuthorization, 'Accepted');
  assert.notEqual(listed.transactionId, null);
});

test('an unknown id, a wrong password and none at all get 401 on the upgrade, and no socket', async () => {
  const server = await start();
  assert.equal(await upgradeStatus(wsUrl(server, 'CP9'), basic('CP9', PASSWORD_1)), 401, 'unknown id');
  assert.equal(
    await upgradeStatus(wsUrl(server, 'CP1'), basic('CP1', 'wrong-password-but-long')),
    401,
    'wrong password',
  );
  assert.equal(await upgradeStatus(wsUrl(server, 'CP1'), basic('CP1', PASSWORD_2)), 401, "another charger's password");
  assert.equal(await upgradeStatus(wsUrl(server, 'CP1')), 401, 'no password');
  // The right one is taken, so the refusals above are the password's and the id's doing.
  assert.equal(await upgradeStatus(wsUrl(server, 'CP1'), basic('CP1', PASSWORD_1)), 101, 'the right password');
  // The emulator's own connect is refused the same way.
  const point = new (await import('@heliograph/plugin-ocpp/emulator')).EmulatedChargePoint({
    url: wsUrl(server, 'CP1'),
    password: 'wrong-password-but-long',
  });
  await assert.rejects(point.start(), /Unauthorized/);
  await point.close();
  // The API's stream is not opened to chargers: its own path still wants the API's password.
  assert.equal(
    await upgradeStatus(`${server.url.replace(/^http/, 'ws')}/api/websocket`, basic('CP1', PASSWORD_1)),
    401,
  );
});

test('`heliograph emulate ocpp-charger` connects as a charger would, a car plugged in', async () => {
  const server = await start();
  const child = spawn(
    process.execPath,
    [MAIN, 'emulate', 'ocpp-charger', '--url', wsUrl(server, 'CP1'), '--password', PASSWORD_1, '--plugged'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  after(() => child.kill('SIGKILL'));
  const output = watchOutput(child);
  await output.waitFor(/charge point connected to ws:\/\/.*\/ocpp\/CP1, car plugged in/, 'the emulator connected');
  await valueWhen(server, 'charger_1/car_connected', (v) => v === true, 'the emulated car');
  child.kill('SIGTERM');
  assert.equal(await within(output.exited, 'the emulator ending on SIGTERM'), 0);
});

test("a charger's messages are checked against OCPP 1.6's schemas: a malformed one gets its CALLERROR, the same one whole is taken", async () => {
  const server = await start();
  // A bare socket, answering none of the central system's calls, as a charger that hangs: the
  // plugin's stop at the end waits for its ClearChargingProfile until its cleanup's deadline,
  // and what the plugin publishes after that is dropped (it once threw out of the service).
  const socket = new WebSocket(wsUrl(server, 'CP1'), 'ocpp1.6', {
    headers: { authorization: basic('CP1', PASSWORD_1) },
  });
  after(() => socket.terminate());
  const replies = new Map<string, unknown[]>();
  socket.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString('utf8')) as unknown[];
    replies.set(String(frame[1]), frame);
  });
  await within(once(socket, 'open'), 'the charger socket open');
  const call = async (id: string, payload: Record<string, unknown>) => {
    socket.send(JSON.stringify([2, id, 'BootNotification', payload]));
    await pollUntil(
      () => Promise.resolve({ done: replies.has(id), seen: [...replies.keys()] }),
      `the answer to call ${id}`,
    );
    return replies.get(id)!;
  };
  // BootNotification.req requires chargePointVendor, at most 20 characters (OCPP 1.6 schemas,
  // BootNotification.json); the error codes are ocpp-rpc's for 1.6 (OCPP-J 1.6 §4.2.3 spells FormationViolation).
  const refused = await call('m1', { chargePointModel: 'Wallbox' });
  assert.deepEqual(refused.slice(0, 3), [4, 'm1', 'OccurrenceConstraintViolation'], JSON.stringify(refused));
  const tooLong = await call('m2', { chargePointVendor: 'V'.repeat(21), chargePointModel: 'Wallbox' });
  assert.deepEqual(tooLong.slice(0, 3), [4, 'm2', 'FormationViolation'], 'maxLength 20: ' + JSON.stringify(tooLong));
  const taken = await call('m3', { chargePointVendor: 'Vendor', chargePointModel: 'Wallbox' });
  assert.equal(taken[0], 3, JSON.stringify(taken));
  assert.equal((taken[2] as { status?: string }).status, 'Accepted');
});
