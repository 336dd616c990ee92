import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SiteWrite } from '@heliograph/plugins-sdk';
import type { TestHost } from '@heliograph/plugins-sdk/testing';
import { HOUR, MIDSUMMER, MINUTE, inverterIds, num, pollThrough, startSimulator } from './helpers.js';

const NIGHT_START = MIDSUMMER - 2 * HOUR; // 22:00 in Berlin
const NIGHT_END = MIDSUMMER + 2 * HOUR; // 04:00 in Berlin, before sunrise
const QUARTER = 15 * MINUTE;

/** A simulator started at `now`, its first poll (battery control's start reconcile) done. */
async function started(now: number, config: Record<string, unknown>): Promise<TestHost> {
  const host = await startSimulator({ now, config });
  await host.runJob('poll');
  return host;
}

const sum = (host: TestHost, name: string) =>
  inverterIds(host).reduce((total, id) => total + num(host, `${id}/${name}`), 0);

/**
 * As `pollThrough`, writing `mode` again at every quarter hour from `from` as the planner
 * does: that renews its lease.
 */
async function renewing(
  host: TestHost,
  mode: string,
  [from, to, stepMs]: [number, number, number],
  check?: (time: number) => void,
): Promise<void> {
  for (let t = from; t <= to; t += stepMs) {
    host.setTime(t);
    if ((t - from) % QUARTER === 0) await host.write('inverter_1/battery_control_mode', mode);
    await host.runJob('poll');
    check?.(t);
  }
}

describe('battery control', () => {
  it('declares the capability on the first inverter with the bank limits and a lease', async () => {
    const host = await startSimulator({ config: { capacityKwh: 8, maxChargeW: 3000, reserveSoc: 15 } });
    await host.runJob('poll');
    assert.equal(host.value('inverter_1/battery_control_mode'), 'Normal');
    assert.equal(host.value('inverter_1/battery_capacity'), 8);
    assert.equal(host.value('inverter_1/battery_max_charge_power'), 3000);
    assert.equal(host.value('inverter_1/battery_min_soc'), 15);
    assert.equal(host.value('inverter_1/battery_control_lease'), 1800, 'the simulated bank ends a command by itself');
    assert.equal(host.value('inverter_2/battery_control_mode'), undefined);
    await host.stop();
    const noBattery = await startSimulator({ devices: ['inverter_1'] });
    assert.equal(noBattery.value('inverter_1/battery_control_mode'), undefined);
    await noBattery.stop();
  });

  it('charge, renewed each quarter hour: the bank charges from the grid at the commanded power and stops at the target', async () => {
    const host = await started(NIGHT_START, { seed: 4, initialSoc: 40 });
    await host.write('inverter_1/battery_control_power', 4000);
    await host.write('inverter_1/battery_control_target_soc', 60);
    let charging = 0;
    let held = 0;
    await renewing(host, 'Charge', [NIGHT_START, NIGHT_END, MINUTE], () => {
      const soc = num(host, 'battery_1/state_of_charge');
      assert.ok(soc <= 60.05, `SOC ${soc} stays at or below the target`);
      const battery = sum(host, 'battery_power');
      assert.ok(battery <= 4000 && battery >= 0, `battery ${battery} W within the commanded power`);
      if (battery > 3900) charging++;
      if (soc >= 59.9 && battery === 0) held++;
      for (const id of inverterIds(host))
        assert.equal(num(host, `${id}/grid_power`), num(host, `${id}/load_power`) + num(host, `${id}/battery_power`));
    });
    assert.ok(charging > 10, `charged at full commanded power in ${charging} polls`);
    assert.ok(held > 10, `held at the target in ${held} polls`);
    assert.equal(host.value('inverter_1/battery_control_mode'), 'Charge');
    await host.stop();
  });

  it('hold, renewed: the night load comes from the grid, the SOC does not move', async () => {
    const host = await started(NIGHT_START, { seed: 4 });
    const before = num(host, 'battery_1/state_of_charge');
    await renewing(host, 'Hold', [NIGHT_START, NIGHT_END, 5 * MINUTE], () =>
      assert.equal(sum(host, 'battery_power'), 0),
    );
    assert.equal(num(host, 'battery_1/state_of_charge'), before);
    await host.stop();
  });

  it('discharge, renewed: the bank exports at the commanded power down to the target, then normal resumes', async () => {
    const host = await started(NIGHT_START, { seed: 4, initialSoc: 60 });
    await host.write('inverter_1/battery_control_power', 5000);
    await host.write('inverter_1/battery_control_target_soc', 45);
    let exported = false;
    await renewing(host, 'Discharge', [NIGHT_START, NIGHT_START + 2 * HOUR, MINUTE], () => {
      assert.ok(num(host, 'battery_1/state_of_charge') >= 44.95);
      exported ||= sum(host, 'grid_power') < 0;
    });
    assert.ok(exported, 'exported to the grid');
    assert.ok(Math.abs(num(host, 'battery_1/state_of_charge') - 45) < 0.1);
    await host.write('inverter_1/battery_control_mode', 'Normal');
    await pollThrough(host, NIGHT_START + 2 * HOUR, NIGHT_END, 5 * MINUTE);
    assert.ok(num(host, 'battery_1/state_of_charge') < 44, 'SBU discharges to the load again');
    await host.stop();
  });

  it('a Charge nobody renews ends by itself in the simulated bank at its lease, with no poll in between', async () => {
    const start = () => started(NIGHT_START, { seed: 4, initialSoc: 40 });
    const charge = async (host: TestHost) => {
      await host.write('inverter_1/battery_control_power', 4000);
      await host.write('inverter_1/battery_control_target_soc', 90);
      await host.write('inverter_1/battery_control_mode', 'Charge');
    };
    // The bank told Charge, then nothing: one poll 50 minutes later, 20 past the lease's end.
    const alone = await start();
    await charge(alone);
    alone.setTime(NIGHT_START + 50 * MINUTE);
    await alone.runJob('poll');
    // The same night, ended by hand exactly at the lease's end.
    const ended = await start();
    await charge(ended);
    ended.setTime(NIGHT_START + 30 * MINUTE);
    await ended.runJob('poll');
    const atEnd = num(ended, 'battery_1/state_of_charge');
    await ended.write('inverter_1/battery_control_mode', 'Normal');
    ended.setTime(NIGHT_START + 50 * MINUTE);
    await ended.runJob('poll');

    assert.ok(atEnd > 55, `charged at 4 kW for the lease: ${atEnd} %`);
    const soc = num(alone, 'battery_1/state_of_charge');
    assert.equal(soc, num(ended, 'battery_1/state_of_charge'), 'the bank charged exactly for the lease');
    assert.ok(soc < atEnd, `then SBU fed the night load from the bank: ${atEnd} -> ${soc} %`);
    assert.ok(num(alone, 'battery_1/power') < 0, 'discharging to the load');
    assert.equal(alone.value('inverter_1/battery_control_mode'), 'Normal');
    assert.equal(alone.value('inverter_1/battery_control_power'), 4000, 'power and target stay as set');
    await alone.stop();
    await ended.stop();
  });

  it('a restart with a forced command in the store starts in Normal, the bank self-consuming', async () => {
    const host = await started(NIGHT_START, { seed: 4, initialSoc: 60 });
    await host.write('inverter_1/battery_control_target_soc', 80);
    await host.write('inverter_1/battery_control_mode', 'Charge');
    const store = Object.fromEntries(host.store);
    assert.equal((store.battery_control as { mode: string }).mode, 'charge', 'the store holds the forced command');
    await host.stop();

    const again = await startSimulator({ now: NIGHT_START, config: { seed: 4, initialSoc: 60 }, store });
    await again.runJob('poll');
    assert.equal(again.value('inverter_1/battery_control_mode'), 'Normal');
    assert.equal(again.value('inverter_1/battery_control_target_soc'), 80, 'the target is kept');
    const before = num(again, 'battery_1/state_of_charge');
    await pollThrough(again, NIGHT_START + MINUTE, NIGHT_START + HOUR, 5 * MINUTE, () =>
      assert.ok(num(again, 'battery_1/power') < 0, 'SBU: the bank feeds the night load'),
    );
    assert.ok(num(again, 'battery_1/state_of_charge') < before);
    await again.stop();
  });

  it('a stop while forced writes Normal through the write path; a stop in Normal writes nothing', async () => {
    const host = await started(NIGHT_START, { seed: 4 });
    await host.write('inverter_1/battery_control_mode', 'Hold');
    const writes: SiteWrite[] = [];
    host.ctx.site.onWrite({ filter: 'inverter_1/battery_control_mode', handler: (w) => writes.push(w) });
    await host.stop();
    assert.deepEqual(
      writes.map((w) => [w.value, w.result]),
      [['Normal', 'ok']],
    );

    const normal = await started(NIGHT_START, { seed: 4 });
    const none: SiteWrite[] = [];
    normal.ctx.site.onWrite({ filter: 'inverter_1/battery_control_mode', handler: (w) => none.push(w) });
    await normal.stop();
    assert.deepEqual(none, []);
  });
});
