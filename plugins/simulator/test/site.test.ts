import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DAY, HOUR, MIDSUMMER, MINUTE, inverterIds, num, pollThrough, startSimulator } from './helpers.js';

describe('simulated site', () => {
  it('makes no PV at night and plenty around local noon in summer at latitude 52.5', async () => {
    for (const seed of [1, 2, 3]) {
      const host = await startSimulator({ config: { seed } });
      // Berlin, 21 June: sunrise about 02:45 UTC, solar noon about 11:08 UTC, sunset about 19:35 UTC.
      for (const night of [MIDSUMMER, MIDSUMMER + 1.5 * HOUR, MIDSUMMER + 21 * HOUR, MIDSUMMER + 23.5 * HOUR]) {
        await pollThrough(host, night, night, 1);
        assert.equal(num(host, 'inverter_1/pv_power'), 0, `seed ${seed}, ${new Date(night).toISOString()}`);
        assert.equal(num(host, 'inverter_2/pv_power'), 0);
      }
      await pollThrough(host, MIDSUMMER + 11 * HOUR, MIDSUMMER + 11 * HOUR, 1);
      // Even under full overcast a 5 kW array gives a tenth of its peak at midsummer noon.
      assert.ok(
        num(host, 'inverter_1/pv_power') > 500,
        `seed ${seed}: inverter_1 PV at noon ${num(host, 'inverter_1/pv_power')}`,
      );
      assert.ok(num(host, 'inverter_2/pv_power') > 300);
      assert.ok(
        num(host, 'inverter_1/pv_power') <= 5000 && num(host, 'inverter_2/pv_power') <= 3000,
        'clipped at the peak',
      );
      await host.stop();
    }
  });

  it('has PV for as many hours as the sun is up, by season and hemisphere', async () => {
    const hoursWithPv = async (day: number, latitude: number, longitude: number) => {
      const host = await startSimulator({ config: { seed: 3 }, now: day, site: { latitude, longitude } });
      let polls = 0;
      await pollThrough(host, day, day + DAY - 1, 5 * MINUTE, () => {
        if (num(host, 'inverter_1/pv_power') > 0) polls++;
      });
      await host.stop();
      return (polls * 5) / 60;
    };
    const june = Date.parse('2026-06-21T00:00:00Z');
    const december = Date.parse('2026-12-21T00:00:00Z');
    // Geometric day lengths (sun centre above the horizon, no refraction), less a few
    // minutes at each end when the panels get too little light to round to a watt.
    const cases: Array<[string, number, number, number, number]> = [
      ['Berlin, June', june, 52.52, 13.405, 16.6],
      ['Berlin, December', december, 52.52, 13.405, 7.5],
      ['Sydney, June', june - 10 * HOUR, -33.87, 151.21, 9.8],
      ['Sydney, December', december - 10 * HOUR, -33.87, 151.21, 14.3],
    ];
    for (const [place, day, latitude, longitude, expected] of cases) {
      const hours = await hoursWithPv(day, latitude, longitude);
      assert.ok(
        hours <= expected + 0.1 && hours >= expected - 0.6,
        `${place}: PV for ${hours} h, expected about ${expected} h`,
      );
    }
  });

  it('balances power on every inverter at every poll over a day: load = pv + grid - battery', async () => {
    const host = await startSimulator({ config: { seed: 2, capacityKwh: 3 } });
    let polls = 0;
    let sawCharging = false;
    let sawDischarging = false;
    await pollThrough(host, MIDSUMMER, MIDSUMMER + DAY, MINUTE, () => {
      polls++;
      let batteryTotal = 0;
      for (const id of inverterIds(host)) {
        const pv = num(host, `${id}/pv_power`);
        const load = num(host, `${id}/load_power`);
        const grid = num(host, `${id}/grid_power`);
        const battery = num(host, `${id}/battery_power`);
        assert.equal(load, pv + grid - battery, `${id} at poll ${polls}`);
        assert.ok(load > 0 && pv >= 0);
        batteryTotal += battery;
        sawCharging ||= battery > 0;
        sawDischarging ||= battery < 0;
      }
      assert.ok(
        Math.abs(num(host, 'battery_1/power') - batteryTotal) <= 1,
        'the battery carries what the inverters put in or take out',
      );
    });
    assert.equal(polls, 24 * 60 + 1);
    assert.ok(sawCharging && sawDischarging);
    await host.stop();
  });

  it('splits the site load by inverter size', async () => {
    const host = await startSimulator({ config: { pvPeakW: [6000, 2000] } });
    let first = 0;
    let second = 0;
    await pollThrough(host, MIDSUMMER, MIDSUMMER + 6 * HOUR, 10 * MINUTE, () => {
      first += num(host, 'inverter_1/load_power');
      second += num(host, 'inverter_2/load_power');
    });
    assert.ok(Math.abs(first / second - 3) < 0.05, `ratio ${first / second}`);
    await host.stop();
  });

  it('keeps SOC within its bounds and moves it the way the battery power points', async () => {
    // A small battery that fills up by day and empties to its reserve by night.
    const host = await startSimulator({ config: { seed: 3, capacityKwh: 2, reserveSoc: 10, initialSoc: 50 } });
    let previousSoc = 50;
    let lowest = 100;
    let highest = 0;
    await pollThrough(host, MIDSUMMER, MIDSUMMER + 2 * DAY, 10_000, () => {
      const soc = num(host, 'battery_1/state_of_charge');
      const power = num(host, 'battery_1/power');
      assert.ok(soc >= 0 && soc <= 100, `SOC ${soc}`);
      if (power > 0) assert.ok(soc >= previousSoc, `charging at ${power} W but SOC fell from ${previousSoc} to ${soc}`);
      if (power < 0)
        assert.ok(soc <= previousSoc, `discharging at ${power} W but SOC rose from ${previousSoc} to ${soc}`);
      if (power === 0) assert.equal(soc, previousSoc);
      previousSoc = soc;
      lowest = Math.min(lowest, soc);
      highest = Math.max(highest, soc);
    });
    assert.ok(highest >= 99.5, `fills up on a sunny day (highest ${highest})`);
    assert.ok(lowest >= 10 && lowest <= 10.5, `stops at the reserve (lowest ${lowest})`);
    await host.stop();
  });

  it('derives battery voltage and current from SOC and power', async () => {
    const host = await startSimulator({ config: { seed: 3, initialSoc: 50 } });
    await pollThrough(host, MIDSUMMER, MIDSUMMER + DAY, 15 * MINUTE, () => {
      const power = num(host, 'battery_1/power');
      const voltage = num(host, 'battery_1/voltage');
      const current = num(host, 'battery_1/current');
      assert.ok(voltage > 44 && voltage < 56, `voltage ${voltage}`);
      assert.ok(Math.abs(current * voltage - power) <= 0.05 * voltage + 1, `${current} A x ${voltage} V vs ${power} W`);
      const temperature = num(host, 'battery_1/temperature');
      assert.ok(temperature > 5 && temperature < 40);
    });
    await host.stop();
  });

  it('warms the inverter under load and lets it cool when idle', async () => {
    const host = await startSimulator({ config: { seed: 3 } });
    await pollThrough(host, MIDSUMMER, MIDSUMMER + 2 * HOUR, 5 * MINUTE);
    const night = num(host, 'inverter_1/temperature');
    await pollThrough(host, MIDSUMMER + 9 * HOUR, MIDSUMMER + 12 * HOUR, 5 * MINUTE);
    const noon = num(host, 'inverter_1/temperature');
    assert.ok(noon > night + 5, `noon ${noon} °C, night ${night} °C`);
    await host.stop();
  });

  it('gives the same readings for the same seed and different ones for another seed', async () => {
    const run = async (seed: number) => {
      const host = await startSimulator({ config: { seed } });
      const seen: unknown[] = [];
      await pollThrough(host, MIDSUMMER, MIDSUMMER + DAY, 7 * MINUTE, () => seen.push([...host.values.entries()]));
      await host.stop();
      return seen;
    };
    const first = await run(7);
    assert.deepEqual(await run(7), first);
    assert.notDeepEqual(await run(8), first);
  });

  it('integrates at most an hour after a long pause', async () => {
    const host = await startSimulator({ config: { seed: 3, maxDischargeW: 1000, initialSoc: 60 } });
    await pollThrough(host, MIDSUMMER, MIDSUMMER, 1);
    // Three days later, at night: discharging at most 1 kW from 10 kWh for one hour.
    await pollThrough(host, MIDSUMMER + 3 * DAY, MIDSUMMER + 3 * DAY, 1);
    const soc = num(host, 'battery_1/state_of_charge');
    assert.ok(soc >= 60 - 10.5 && soc <= 60, `SOC ${soc}`);
    await host.stop();
  });

  it('runs inverters without a battery and any number of inverters', async () => {
    const host = await startSimulator({
      config: { pvPeakW: 4000 },
      devices: ['inverter_1', 'inverter_2', 'inverter_3'],
    });
    await pollThrough(host, MIDSUMMER, MIDSUMMER + DAY, 30 * MINUTE, () => {
      for (const id of inverterIds(host)) {
        assert.equal(num(host, `${id}/battery_power`), 0);
        assert.equal(num(host, `${id}/load_power`), num(host, `${id}/pv_power`) + num(host, `${id}/grid_power`));
      }
      assert.equal(num(host, 'inverter_1/pv_power'), num(host, 'inverter_3/pv_power'));
    });
    assert.equal(host.value('inverter_3/model'), 'Heliograph Sim 4K');
    await host.stop();
  });
});
