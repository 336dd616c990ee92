import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOUR, MIDSUMMER, MINUTE, inverterIds, num, pollThrough, startSimulator } from './helpers.js';

const NIGHT_START = MIDSUMMER - 2 * HOUR; // 22:00 in Berlin
const NIGHT_END = MIDSUMMER + 2 * HOUR; // 04:00 in Berlin, before sunrise

const sum = (host: Awaited<ReturnType<typeof startSimulator>>, name: string) =>
  inverterIds(host).reduce((total, id) => total + num(host, `${id}/${name}`), 0);

describe('battery control', () => {
  it('declares the capability on the first inverter with the bank limits', async () => {
    const host = await startSimulator({ config: { capacityKwh: 8, maxChargeW: 3000, reserveSoc: 15 } });
    await host.runJob('poll');
    assert.equal(host.value('inverter_1/battery_control_mode'), 'Normal');
    assert.equal(host.value('inverter_1/battery_capacity'), 8);
    assert.equal(host.value('inverter_1/battery_max_charge_power'), 3000);
    assert.equal(host.value('inverter_1/battery_min_soc'), 15);
    assert.equal(host.value('inverter_2/battery_control_mode'), undefined);
    await host.stop();
    const noBattery = await startSimulator({ devices: ['inverter_1'] });
    assert.equal(noBattery.value('inverter_1/battery_control_mode'), undefined);
    await noBattery.stop();
  });

  it('charge: the bank charges from the grid at the commanded power and stops at the target', async () => {
    const host = await startSimulator({ now: NIGHT_START, config: { seed: 4, initialSoc: 40 } });
    await host.write('inverter_1/battery_control_power', 4000);
    await host.write('inverter_1/battery_control_target_soc', 60);
    await host.write('inverter_1/battery_control_mode', 'Charge');
    let charging = 0;
    let held = 0;
    await pollThrough(host, NIGHT_START, NIGHT_END, MINUTE, () => {
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
    await host.stop();
  });

  it('hold: the night load comes from the grid, the SOC does not move', async () => {
    const host = await startSimulator({ now: NIGHT_START, config: { seed: 4 } });
    await host.write('inverter_1/battery_control_mode', 'Hold');
    const before = num(host, 'battery_1/state_of_charge');
    await pollThrough(host, NIGHT_START, NIGHT_END, 5 * MINUTE, () => assert.equal(sum(host, 'battery_power'), 0));
    assert.equal(num(host, 'battery_1/state_of_charge'), before);
    await host.stop();
  });

  it('discharge: the bank exports at the commanded power down to the target, then normal resumes', async () => {
    const host = await startSimulator({ now: NIGHT_START, config: { seed: 4, initialSoc: 60 } });
    await host.write('inverter_1/battery_control_power', 5000);
    await host.write('inverter_1/battery_control_target_soc', 45);
    await host.write('inverter_1/battery_control_mode', 'Discharge');
    let exported = false;
    await pollThrough(host, NIGHT_START, NIGHT_START + 2 * HOUR, MINUTE, () => {
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

  it('a restart keeps the command in force', async () => {
    const host = await startSimulator({ now: NIGHT_START, config: { seed: 4 } });
    await host.write('inverter_1/battery_control_mode', 'Hold');
    const store = Object.fromEntries(host.store);
    await host.stop();
    const again = await startSimulator({ now: NIGHT_START, config: { seed: 4 }, store });
    assert.equal(again.value('inverter_1/battery_control_mode'), 'Hold');
    await again.stop();
  });
});
