// Settings of one device written together (SDK 1.4) by a plugin in-process and in a worker
// thread: the fixture commands its own battery with the mode, power and target in one
// `ctx.site.write`. It crosses the worker boundary as data, the device takes it as one
// command (one `apply`), the audit has one entry in words, and a companion out of range
// refuses the whole write before the device is asked.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { pollUntil } from '../helpers/deadline.js';
import { jsonBody, startTestServer } from '../helpers/server.js';

const server = await startTestServer({
  fixtures: ['together-writer'],
  plugins: [
    { id: 'writer-local', plugin: 'together-writer', devices: ['inverter_1'], isolation: 'process-local' },
    { id: 'writer-worker', plugin: 'together-writer', devices: ['inverter_2'], isolation: 'worker' },
  ],
});
after(() => server.close());

async function act(device: string, action: string): Promise<void> {
  const res = await server.api('/api/v1/metrics', jsonBody({ topic: `${device}/action`, value: action }));
  assert.equal(res.status, 200, await res.clone().text());
}

const value = async (topic: string) => (await server.api(`/api/v1/metrics?topic=${topic}&value=1`)).text();

interface Entry {
  topic: string;
  new_value: string;
  result: string;
  via: string;
  who: string;
  message: string | null;
}

/** The instance's own writes in the audit (GET /api/v1/audit), newest first. */
async function writesOf(instance: string): Promise<Entry[]> {
  const audit = (await (await server.api('/api/v1/audit?limit=100')).json()) as Entry[];
  return audit.filter((e) => e.who === `plugin:${instance}`);
}

for (const [isolation, device, instance] of [
  ['in-process', 'inverter_1', 'writer-local'],
  ['in a worker thread', 'inverter_2', 'writer-worker'],
] as const) {
  describe(`a together-write ${isolation}`, () => {
    test('is one command on the device and one audit entry; a companion out of range refuses all of it', async () => {
      await act(device, 'Charge');
      assert.equal(await value(`${device}/write_result`), 'ok');
      assert.equal(await value(`${device}/commands_taken`), '1', 'one apply');
      assert.equal(await value(`${device}/last_command`), 'charge 3000 W 90 %', 'the merged command');
      assert.deepEqual(
        [
          await value(`${device}/battery_control_mode`),
          await value(`${device}/battery_control_power`),
          await value(`${device}/battery_control_target_soc`),
        ],
        ['Charge', '3000', '90'],
        'every part shown',
      );
      let mine: Entry[] = [];
      await pollUntil(async () => {
        mine = await writesOf(instance);
        return { done: mine.length > 0, seen: mine };
      }, `the audit entry of ${instance}'s write`);
      assert.deepEqual(
        mine.map((e) => [e.via, e.topic, e.new_value, e.result]),
        [['together-writer', `${device}/battery_control_mode`, 'Charge, 3000 W, 90 %', 'ok']],
      );

      await act(device, 'Too much');
      assert.match(await value(`${device}/write_result`), /^battery_control_power: value "9000" is not allowed/);
      assert.equal(await value(`${device}/commands_taken`), '1', 'the device was not asked');
      assert.equal(await value(`${device}/battery_control_power`), '3000', 'nothing changed');
      mine = await writesOf(instance);
      assert.deepEqual(
        mine.map((e) => [e.topic, e.new_value, e.result]),
        [
          [`${device}/battery_control_mode`, 'charge, 9000, 90', 'error'],
          [`${device}/battery_control_mode`, 'Charge, 3000 W, 90 %', 'ok'],
        ],
      );
    });
  });
}
