// One controller per battery, on the write path with a real registry and an audit in a real
// SQLite file: the first plugin instance that writes a battery's `battery_control_*` through
// ctx.site.write keeps it until it stops or sets it back to Normal; another instance is refused (audited, naming the
// first), while people, integrations and the device's own driver still write.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SettingDeclaration } from '@heliograph/plugins-sdk';
import { ManualClock } from '../../src/clock.js';
import { TopicRegistry } from '../../src/topics/registry.js';
import { BatteryControllers, controlledBattery } from '../../src/writes/battery-controllers.js';
import { WriteService, type WriteRequest } from '../../src/writes/service.js';
import { meta } from '../websocket/harness.js';
import { tempAudit } from './support.js';

const MODE = 'inverter_1/battery_control_mode';
const POWER = 'inverter_1/battery_control_power';
const OTHER = 'inverter_1/max_charge_current';

async function start() {
  const clock = new ManualClock(Date.parse('2026-11-27T14:00:00Z'));
  const registry = new TopicRegistry(clock);
  const { db, audit, close } = await tempAudit(clock, 'heliograph-controllers-');
  const writes = new WriteService(registry, audit, clock);
  const taken: string[] = [];
  const signal = new AbortController().signal;
  const kinds: Record<string, object> = {
    [MODE]: { options: ['Normal', 'Charge'] },
    [POWER]: { min: 0, max: 5000, step: 1 },
    [OTHER]: { min: 0, max: 100, step: 1 },
  };
  const setting = (topic: string) =>
    ({
      name: topic.split('/')[1]!,
      displayName: topic,
      ...kinds[topic],
      write: ({ value }: { value: unknown }) => {
        taken.push(`${topic.split('/')[1]!}=${String(value)}`);
        return Promise.resolve();
      },
    }) as unknown as SettingDeclaration;
  registry.define(
    meta(MODE, { type: 'string', recorded: false, writable: { options: ['Normal', 'Charge'] } }),
    'Normal',
  );
  registry.define(meta(POWER, { unit: 'W', recorded: false, writable: { min: 0, max: 5000, step: 1 } }), 0);
  registry.define(meta(OTHER, { unit: 'A', recorded: false, writable: { min: 0, max: 100, step: 1 } }), 0);
  for (const topic of [MODE, POWER, OTHER])
    writes.register(topic, {
      setting: setting(topic),
      owner: 'driver',
      signal,
      onError: () => undefined,
    });
  const write = (topic: string, value: string, request: Partial<WriteRequest>) =>
    writes.write({ topic, value, who: 'admin', via: 'rest', ...request });
  const plugin = (instance: string): Partial<WriteRequest> => ({
    who: `plugin:${instance}`,
    via: 'planner',
    controller: instance,
  });
  return {
    writes,
    taken,
    write,
    plugin,
    audited: () =>
      db.all<Array<{ who: string; topic: string; result: string; message: string | null }>>(
        'SELECT who, topic, result, message FROM audit ORDER BY id',
      ),
    close,
  };
}

const refusal =
  "inverter_1's battery is already controlled by first: one controller per battery, so second may not command it (stop first, or point second at another device)";

test('the first instance to write a battery controls it; a second is refused naming the first, and audited', async (t) => {
  const fx = await start();
  t.after(fx.close);
  assert.deepEqual(await fx.write(MODE, 'Charge', fx.plugin('first')), { ok: true });
  assert.deepEqual(await fx.write(POWER, '2000', fx.plugin('second')), { ok: false, message: refusal });
  assert.deepEqual(await fx.write(MODE, 'Normal', fx.plugin('second')), { ok: false, message: refusal });
  assert.deepEqual(await fx.write(POWER, '3000', fx.plugin('first')), { ok: true }, 'the controller goes on');
  assert.deepEqual(fx.taken, ['battery_control_mode=Charge', 'battery_control_power=3000'], 'nothing of the second');
  const rows = await fx.audited();
  assert.deepEqual(
    rows.map((r) => [r.who, r.topic, r.result, r.message]),
    [
      ['plugin:first', MODE, 'ok', null],
      ['plugin:second', POWER, 'error', refusal],
      ['plugin:second', MODE, 'error', refusal],
      ['plugin:first', POWER, 'ok', null],
    ],
  );
});

test("people, integrations, the device's own driver and other settings are no controllers", async (t) => {
  const fx = await start();
  t.after(fx.close);
  assert.deepEqual(await fx.write(MODE, 'Charge', fx.plugin('first')), { ok: true });
  assert.deepEqual(await fx.write(MODE, 'Normal', {}), { ok: true }, 'a person (REST)');
  assert.deepEqual(
    await fx.write(MODE, 'Charge', { who: 'plugin:mqtt', via: 'mqtt' }),
    { ok: true },
    'the MQTT bridge',
  );
  const heard: Array<boolean | undefined> = [];
  fx.writes.events.on('written', (entry) => heard.push(entry.byDriver));
  assert.deepEqual(await fx.write(MODE, 'Normal', fx.plugin('driver')), { ok: true }, 'the driver ending a command');
  assert.deepEqual(heard, [true], "told to listeners as the driver's own, so a planner does not pause for it");
  assert.deepEqual(await fx.write(OTHER, '20', fx.plugin('second')), { ok: true }, 'not a battery_control_* setting');
  assert.deepEqual(heard, [true, undefined], 'another plugin is not the driver');
  assert.equal(fx.writes.controllers.ownerOf('inverter_1'), 'first');
  assert.equal(fx.writes.controllers.controls('driver'), false);
  assert.equal(fx.writes.controllers.controls('second'), false);
});

test('a stopped controller lets its batteries go; the next one takes them', async (t) => {
  const fx = await start();
  t.after(fx.close);
  assert.deepEqual(await fx.write(MODE, 'Charge', fx.plugin('first')), { ok: true });
  assert.equal(fx.writes.controllers.controls('first'), true);
  fx.writes.controllers.release('first');
  assert.equal(fx.writes.controllers.controls('first'), false);
  assert.deepEqual(await fx.write(MODE, 'Charge', fx.plugin('second')), { ok: true });
  assert.equal(fx.writes.controllers.ownerOf('inverter_1'), 'second');
});

test('claims per device, and the topics that name a controlled battery', () => {
  const controllers = new BatteryControllers();
  assert.deepEqual(controllers.claim('inverter_1', 'a'), { ok: true });
  assert.deepEqual(controllers.claim('inverter_1', 'a'), { ok: true }, 'again by the same: no change');
  assert.deepEqual(controllers.claim('inverter_2', 'b'), { ok: true }, 'another battery, another controller');
  assert.deepEqual(controllers.claim('inverter_1', 'b'), { ok: false, owner: 'a' });
  controllers.release('b');
  assert.equal(controllers.ownerOf('inverter_2'), undefined);
  assert.equal(controllers.ownerOf('inverter_1'), 'a', "release frees only that instance's batteries");
  assert.equal(controlledBattery('inverter_1/battery_control_mode'), 'inverter_1');
  assert.equal(controlledBattery('inverter_12/battery_control_power'), 'inverter_12');
  assert.equal(controlledBattery('inverter_1/battery_control_target_soc'), 'inverter_1');
  assert.equal(controlledBattery('inverter_1/battery_control_lease'), null, 'an Info row, not a command');
  assert.equal(controlledBattery('inverter_1/battery_control_modes'), null);
  assert.equal(controlledBattery('x/inverter_1/battery_control_mode'), null);
  assert.equal(controlledBattery('inverter_1/max_charge_current'), null);
});

test("a controller that sets its battery back to Normal lets it go (a charger's hold ended); other settings keep it", async (t) => {
  const fx = await start();
  t.after(fx.close);
  assert.deepEqual(await fx.write(MODE, 'Charge', fx.plugin('first')), { ok: true });
  assert.deepEqual(await fx.write(POWER, '0', fx.plugin('first')), { ok: true });
  assert.equal(fx.writes.controllers.ownerOf('inverter_1'), 'first', 'a power write is no release');
  assert.deepEqual(await fx.write(MODE, 'Normal', fx.plugin('second')), { ok: false, message: refusal });
  assert.equal(fx.writes.controllers.ownerOf('inverter_1'), 'first', "another's Normal, refused, releases nothing");
  assert.deepEqual(await fx.write(MODE, 'Normal', fx.plugin('first')), { ok: true });
  assert.equal(fx.writes.controllers.ownerOf('inverter_1'), undefined);
  assert.deepEqual(await fx.write(MODE, 'Charge', fx.plugin('second')), { ok: true }, 'the next one takes it');
  assert.equal(fx.writes.controllers.ownerOf('inverter_1'), 'second');
});
