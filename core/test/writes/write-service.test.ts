// The one path every write takes, on a real registry and an audit in a real SQLite file:
// what is refused before the device is asked (unknown, not writable, out of range, over the
// rate), what a device's failure or silence answers, that writes to one setting reach the
// device in order, and that every attempt is audited and announced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { DeviceRefusedError, type SettingDeclaration } from '@heliograph/plugins-sdk';
import { ManualClock } from '../../src/clock.js';
import { captureLog } from '../helpers/log-lines.js';
import { TopicRegistry } from '../../src/topics/registry.js';
import type { AuditEntry, AuditLog } from '../../src/writes/audit.js';
import { WriteRateLimiter } from '../../src/writes/rate-limit.js';
import { WriteService, type WriteRequest } from '../../src/writes/service.js';
import { within } from '../helpers/deadline.js';
import { meta } from '../websocket/harness.js';
import { tempAudit } from './support.js';

const START = Date.parse('2026-11-22T10:00:00Z');
const CURRENT = 'inverter_1/max_charge_current';
const MODE = 'inverter_1/output_mode';

interface Fixture {
  clock: ManualClock;
  registry: TopicRegistry;
  writes: WriteService;
  audit: AuditLog;
  /** Values the fake device took, in order. */
  taken: Array<string | number>;
  /** What the device does with the next write (default: takes it). */
  device: { write: (value: string | number, signal: AbortSignal) => Promise<void> };
  errors: string[];
  handlerAbort: AbortController;
  close: () => Promise<void>;
}

async function start(options: { timeoutMs?: number; limiter?: WriteRateLimiter } = {}): Promise<Fixture> {
  const clock = new ManualClock(START);
  const registry = new TopicRegistry(clock);
  const { audit, close } = await tempAudit(clock, 'heliograph-writes-');
  const writes = new WriteService(registry, audit, clock, options.timeoutMs, options.limiter);
  const taken: Array<string | number> = [];
  const errors: string[] = [];
  const handlerAbort = new AbortController();
  const device = {
    write: (value: string | number, _signal: AbortSignal) => {
      taken.push(value);
      return Promise.resolve();
    },
  };
  const setting = {
    name: 'max_charge_current',
    displayName: 'Max charge current',
    min: 0,
    max: 100,
    step: 10,
    write: ({ value, signal }: { value: string | number; signal: AbortSignal }) => device.write(value, signal),
  } as unknown as SettingDeclaration;
  registry.define(
    meta(CURRENT, { group: 'Settings', unit: 'A', recorded: false, writable: { min: 0, max: 100, step: 10 } }),
    50,
  );
  registry.define(meta(MODE, { group: 'Settings', unit: '', type: 'string', recorded: false }), 'Solar first');
  registry.define(meta('total/pv_power'), 3200);
  writes.register(CURRENT, { setting, onError: (message) => errors.push(message), signal: handlerAbort.signal });
  return {
    clock,
    registry,
    writes,
    audit,
    taken,
    device,
    errors,
    handlerAbort,
    close,
  };
}

const write = (fx: Fixture, value: string, extra: Partial<WriteRequest> = {}) =>
  fx.writes.write({ topic: CURRENT, value, who: 'admin', via: 'rest', ...extra });

test('a valid write reaches the device, shows the new value, and is audited with the old one', async (t) => {
  const fx = await start();
  t.after(fx.close);
  const heard: AuditEntry[] = [];
  fx.writes.events.on('written', (entry) => heard.push(entry));
  fx.clock.advance(1500);
  assert.deepEqual(await write(fx, '70', { who: 'kitchen panel', via: 'websocket' }), { ok: true });
  assert.deepEqual(fx.taken, [70]);
  assert.equal(fx.registry.visibleValue(fx.registry.get(CURRENT)!), 70, 'the new value is shown');
  const entry = {
    time: START + 1500,
    who: 'kitchen panel',
    via: 'websocket',
    topic: CURRENT,
    oldValue: 50,
    newValue: '70',
    result: 'ok',
    message: null,
  };
  assert.deepEqual(heard, [entry]);
  const [listed] = await fx.audit.list(1);
  assert.deepEqual(
    [listed!.who, listed!.via, listed!.topic, listed!.old_value, listed!.new_value, listed!.result],
    ['kitchen panel', 'websocket', CURRENT, 50, '70', 'ok'],
  );
  assert.equal(fx.errors.length, 0);
});

test('unknown topics, read-only topics and values out of range are refused before the device, and audited', async (t) => {
  const fx = await start();
  t.after(fx.close);
  const refused: Array<[string, string]> = [];
  const onRefused = (topic: string, message: string) => refused.push([topic, message]);
  fx.writes.events.on('refused', onRefused);
  const stop = () => fx.writes.events.off('refused', onRefused);
  assert.deepEqual(await write(fx, '1', { topic: 'nope/nothing' }), {
    ok: false,
    message: 'unknown topic nope/nothing',
  });
  assert.deepEqual(await write(fx, '1', { topic: 'total/pv_power' }), {
    ok: false,
    message: 'total/pv_power is not writable',
  });
  assert.deepEqual(await write(fx, '1', { topic: MODE }), { ok: false, message: `${MODE} is not writable` });
  const tooHigh = await write(fx, '110');
  assert.equal(tooHigh.ok, false);
  assert.deepEqual(fx.taken, [], 'the device was never asked');
  assert.deepEqual(
    refused.map(([topic]) => topic),
    ['nope/nothing', 'total/pv_power', MODE, CURRENT],
  );
  const audited = await fx.audit.list(10);
  assert.equal(audited.length, 4, 'every refusal is audited');
  assert.deepEqual(
    audited.map((e) => [e.result, e.old_value]),
    [
      ['error', 50],
      ['error', 'Solar first'],
      ['error', 3200],
      ['error', null],
    ],
  );
  assert.deepEqual(await write(fx, '60'), { ok: true });
  assert.equal(refused.length, 4, 'a write that went through is no refusal');
  stop();
  await write(fx, '1', { topic: 'nope/nothing' });
  assert.equal(refused.length, 4, 'a stopped listener hears no more');
});

test('topicsWriting counts the settings with a write in flight, and falls back to 0 when they are done', async (t) => {
  const fx = await start();
  t.after(fx.close);
  let confirm = () => {};
  fx.device.write = (value) => {
    fx.taken.push(value);
    return new Promise<void>((resolve) => (confirm = resolve));
  };
  assert.equal(fx.writes.topicsWriting, 0);
  const first = write(fx, '60');
  const second = write(fx, '70');
  await within(
    (async () => {
      while (fx.taken.length === 0) await new Promise((resolve) => setImmediate(resolve));
    })(),
    'the device asked for the first write',
    2000,
  );
  assert.equal(fx.writes.topicsWriting, 1, 'two writes queued on one setting: one topic writing');
  confirm();
  assert.deepEqual(await first, { ok: true });
  await within(
    (async () => {
      while (fx.taken.length < 2) await new Promise((resolve) => setImmediate(resolve));
    })(),
    'the device asked for the second write',
    2000,
  );
  assert.equal(fx.writes.topicsWriting, 1, 'the second still in flight');
  confirm();
  assert.deepEqual(await second, { ok: true });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(fx.writes.topicsWriting, 0, 'nothing left writing');
});

test("a device's refusal and its silence answer with the reason and tell the plugin", async (t) => {
  const fx = await start({ timeoutMs: 50 });
  t.after(fx.close);
  fx.device.write = () => Promise.reject(new DeviceRefusedError({ answer: 'device busy' }));
  const refused = await write(fx, '60');
  assert.equal(refused.ok, false);
  assert.match(!refused.ok ? refused.message : '', /device busy/);
  assert.equal(fx.errors.length, 1);
  assert.equal(fx.errors[0], !refused.ok ? refused.message : '', 'the plugin hears the same message');
  assert.equal(fx.registry.visibleValue(fx.registry.get(CURRENT)!), 50, 'the old value stays shown');

  let aborted: unknown;
  fx.device.write = (_value, signal) =>
    new Promise((_resolve, reject) => {
      signal.addEventListener('abort', () => {
        aborted = signal.reason;
        reject(new Error('handler gave up'));
      });
    });
  assert.deepEqual(await write(fx, '60'), {
    ok: false,
    message: 'the device did not answer: no confirmation within 0.05 s',
  });
  assert.ok(aborted instanceof Error, 'the handler was told to stop');
  assert.equal(fx.errors[1], 'the device did not answer: no confirmation within 0.05 s');
  const [entry] = await fx.audit.list(1);
  assert.equal(entry!.message, 'the device did not answer: no confirmation within 0.05 s');
});

test('a handler whose plugin stops is abandoned at once, with the reason it stopped', async (t) => {
  const fx = await start();
  t.after(fx.close);
  fx.device.write = () => new Promise(() => {});
  const pending = write(fx, '60');
  fx.handlerAbort.abort(new Error('plugin stopped'));
  const outcome = await pending;
  assert.equal(outcome.ok, false);
  assert.match(!outcome.ok ? outcome.message : '', /plugin stopped/);
  fx.device.write = () => Promise.resolve();
  const again = await write(fx, '60');
  assert.equal(again.ok, false, 'a stopped handler is not asked again');
  assert.match(!again.ok ? again.message : '', /plugin stopped/);
});

test('writes to one setting reach the device one at a time, in the order they came', async (t) => {
  const fx = await start();
  t.after(fx.close);
  const release: Array<() => void> = [];
  let inFlight = 0;
  let most = 0;
  fx.device.write = (value) => {
    fx.taken.push(value);
    inFlight++;
    most = Math.max(most, inFlight);
    return new Promise<void>((resolve) =>
      release.push(() => {
        inFlight--;
        resolve();
      }),
    );
  };
  const outcomes = [write(fx, '10'), write(fx, '20'), write(fx, '30')];
  for (let i = 0; i < 3; i++) {
    for (let spins = 0; release.length <= i; spins++) {
      if (spins > 10_000) assert.fail(`write ${i + 1} never reached the device`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    release[i]!();
  }
  assert.deepEqual(await Promise.all(outcomes), [{ ok: true }, { ok: true }, { ok: true }]);
  assert.deepEqual(fx.taken, [10, 20, 30]);
  assert.equal(most, 1, 'never two at once');
  assert.equal(fx.registry.visibleValue(fx.registry.get(CURRENT)!), 30);
});

test("a client over its write rate is refused with when to retry; an integration's budget is per topic", async (t) => {
  const fx = await start({ limiter: new WriteRateLimiter(new ManualClock(START), 2, 1) });
  t.after(fx.close);
  assert.deepEqual(await write(fx, '10'), { ok: true });
  assert.deepEqual(await write(fx, '20'), { ok: true });
  assert.deepEqual(await write(fx, '30'), {
    ok: false,
    message: 'too many writes from admin: at most 20 at once and 5 per second; try again in 1 s',
    retryAfterS: 1,
  });
  assert.deepEqual(await write(fx, '30', { who: 'kitchen panel' }), { ok: true }, 'another client has its own');
  assert.equal((await fx.audit.list(10)).length, 3, 'refusals by the rate are not audited');

  const plugin = { who: 'plugin:mqtt', via: 'mqtt' as const };
  assert.deepEqual(await write(fx, '10', plugin), { ok: true });
  assert.deepEqual(await write(fx, '20', plugin), { ok: true });
  assert.equal((await write(fx, '30', plugin)).ok, false, "the integration's budget for this topic is used");
  assert.equal(
    (await write(fx, '1', { ...plugin, topic: 'nope/nothing' })).ok,
    false,
    'another topic has its own budget (and is then refused as unknown)',
  );
  const [last] = await fx.audit.list(1);
  assert.equal(last!.message, 'unknown topic nope/nothing', 'the other topic got past the rate');
});

test('a handler is replaced, updated and removed only by its own registration', async (t) => {
  const fx = await start();
  t.after(fx.close);
  assert.equal(fx.writes.hasHandler(CURRENT), true);
  assert.equal(fx.writes.hasHandler(MODE), false);
  const setting = (label: string) =>
    ({
      name: 'max_charge_current',
      displayName: 'Max charge current',
      min: 0,
      max: 100,
      step: 10,
      write: ({ value }: { value: string | number }) => {
        fx.taken.push(`${label} ${value}`);
        return Promise.resolve();
      },
    }) as unknown as SettingDeclaration;
  const unregister = fx.writes.register(CURRENT, {
    setting: setting('new'),
    onError: () => {},
    signal: fx.handlerAbort.signal,
  });
  assert.deepEqual(await write(fx, '90'), { ok: true });
  assert.deepEqual(fx.taken, ['new 90'], 'the newer handler takes the write');
  fx.writes.updateSetting(CURRENT, setting('updated'));
  assert.deepEqual(await write(fx, '80'), { ok: true });
  assert.deepEqual(fx.taken, ['new 90', 'updated 80'], 'the updated declaration takes the next write');
  fx.writes.updateSetting(MODE, setting('mode'));
  assert.equal(fx.writes.hasHandler(MODE), false, 'updating a topic without a handler adds none');
  unregister();
  assert.equal(fx.writes.hasHandler(CURRENT), false);
  assert.deepEqual(await write(fx, '10'), { ok: false, message: `${CURRENT} is not writable` });
});

test('an older registration going away leaves the newer handler in place', async (t) => {
  const fx = await start();
  t.after(fx.close);
  const setting: SettingDeclaration = {
    name: 'x',
    displayName: 'x',
    min: 0,
    max: 100,
    step: 10,
    write: () => Promise.resolve(),
  };
  const first = fx.writes.register(MODE, {
    setting,
    onError: () => {},
    signal: fx.handlerAbort.signal,
  });
  fx.writes.register(MODE, {
    setting,
    onError: () => {},
    signal: fx.handlerAbort.signal,
  });
  first();
  assert.equal(fx.writes.hasHandler(MODE), true);
});

test("a client's refused writes are logged at most once a minute, with how many were refused", async (t) => {
  const clock = new ManualClock(START);
  const fx = await start({ limiter: new WriteRateLimiter(clock, 1, 0.001) });
  t.after(fx.close);
  const lines = captureLog(t);
  assert.deepEqual(await write(fx, '10'), { ok: true });
  assert.equal((await write(fx, '20')).ok, false);
  assert.equal(lines.length, 1, 'the first refusal is logged');
  assert.match(
    lines[0]!,
    / warn \[writes\] too many writes from admin: 1 refused \(limit 20 at once, 5 per second\)\n$/,
  );
  fx.clock.advance(59_999);
  await write(fx, '20');
  await write(fx, '20');
  assert.equal(lines.length, 1, 'not again within the minute');
  fx.clock.advance(1);
  await write(fx, '20');
  assert.equal(lines.length, 2);
  assert.match(lines[1]!, /too many writes from admin: 3 refused /, 'counting the refusals since the last line');
  await write(fx, '20', { who: 'kitchen panel' });
  await write(fx, '20', { who: 'kitchen panel' });
  assert.equal(lines.length, 3, 'another client has its own line');
  assert.match(lines[2]!, /too many writes from kitchen panel: 1 refused /);
});

test('a plugin stopping while the device works on a write ends that write at once', async (t) => {
  const fx = await start();
  t.after(fx.close);
  let started!: () => void;
  const working = new Promise<void>((resolve) => (started = resolve));
  fx.device.write = () => {
    started();
    return new Promise(() => {}); // the device never answers, and ignores the signal
  };
  const pending = write(fx, '60');
  await within(working, 'the write reaching the device');
  fx.handlerAbort.abort(new Error('plugin stopped'));
  const outcome = await within(pending, 'the abandoned write to answer');
  assert.equal(outcome.ok, false);
  assert.match(!outcome.ok ? outcome.message : '', /plugin stopped/);
});

test('a device that ignores the signal is still given up on at the timeout', async (t) => {
  const fx = await start({ timeoutMs: 50 });
  t.after(fx.close);
  fx.device.write = () => new Promise(() => {});
  assert.deepEqual(await within(write(fx, '60'), 'the timed-out write to answer'), {
    ok: false,
    message: 'the device did not answer: no confirmation within 0.05 s',
  });
});

test('a finished write, taken or failed, leaves no abort listener on the signal it was given', async (t) => {
  const fx = await start();
  t.after(fx.close);
  const signals: AbortSignal[] = [];
  fx.device.write = (_value, signal) => {
    signals.push(signal);
    return Promise.resolve();
  };
  assert.deepEqual(await write(fx, '60'), { ok: true });
  fx.device.write = (_value, signal) => {
    signals.push(signal);
    return Promise.reject(new Error('NAK'));
  };
  assert.equal((await write(fx, '70')).ok, false);
  assert.deepEqual(
    signals.map((signal) => getEventListeners(signal, 'abort').length),
    [0, 0],
  );
});
