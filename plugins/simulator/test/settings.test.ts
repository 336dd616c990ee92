import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DAY, HOUR, MIDSUMMER, MINUTE, inverterIds, num, pollThrough, startSimulator } from './helpers.js';

const NIGHT_START = MIDSUMMER - 2 * HOUR; // 22:00 in Berlin
const NIGHT_END = MIDSUMMER + 2 * HOUR; // 04:00 in Berlin, before sunrise

async function writeAll(
  host: Awaited<ReturnType<typeof startSimulator>>,
  name: string,
  value: string | number,
): Promise<void> {
  for (const id of inverterIds(host)) await host.write(`${id}/${name}`, value);
}

describe('writable settings', () => {
  it('Utility first: the grid carries the night load and the battery is not discharged', async () => {
    const host = await startSimulator({ now: NIGHT_START, config: { seed: 4 } });
    await writeAll(host, 'output_source_priority', 'Utility first');
    const socBefore = num(host, 'battery_1/state_of_charge');
    await pollThrough(host, NIGHT_START, NIGHT_END, MINUTE, () => {
      for (const id of inverterIds(host)) {
        assert.equal(num(host, `${id}/battery_power`), 0);
        assert.equal(num(host, `${id}/grid_power`), num(host, `${id}/load_power`));
        assert.equal(host.value(`${id}/device_mode`), 'Line');
      }
    });
    assert.equal(num(host, 'battery_1/state_of_charge'), socBefore);
    await host.stop();
  });

  it('SBU priority: the battery covers the night load', async () => {
    const host = await startSimulator({ now: NIGHT_START, config: { seed: 4 } });
    await writeAll(host, 'output_source_priority', 'SBU priority');
    const socBefore = num(host, 'battery_1/state_of_charge');
    let polls = 0;
    let fromBattery = 0;
    await pollThrough(host, NIGHT_START, NIGHT_END, MINUTE, () => {
      for (const id of inverterIds(host)) {
        polls++;
        const load = num(host, `${id}/load_power`);
        const battery = num(host, `${id}/battery_power`);
        assert.ok(battery < 0, `${id} discharges`);
        // Only an appliance peak above the inverter's share of the discharge limit needs the grid.
        if (num(host, `${id}/grid_power`) === 0) {
          fromBattery++;
          assert.equal(-battery, load);
          assert.equal(host.value(`${id}/device_mode`), 'Battery');
        }
      }
    });
    assert.ok(fromBattery > 0.95 * polls, `battery alone on ${fromBattery} of ${polls}`);
    assert.ok(num(host, 'battery_1/state_of_charge') < socBefore - 5);
    await host.stop();
  });

  it('Solar first: PV feeds the load, only PV surplus charges, the battery is never discharged', async () => {
    const host = await startSimulator({ config: { seed: 3, initialSoc: 20 } });
    await writeAll(host, 'output_source_priority', 'Solar first');
    let charged = false;
    await pollThrough(host, MIDSUMMER, MIDSUMMER + DAY, 2 * MINUTE, () => {
      for (const id of inverterIds(host)) {
        const pv = num(host, `${id}/pv_power`);
        const load = num(host, `${id}/load_power`);
        const battery = num(host, `${id}/battery_power`);
        assert.ok(
          battery >= 0 && battery <= Math.max(0, pv - load),
          `${id}: battery ${battery}, pv ${pv}, load ${load}`,
        );
        if (pv <= load) assert.equal(num(host, `${id}/grid_power`), load - pv, `${id}: the grid tops up what PV lacks`);
        charged ||= battery > 0;
      }
    });
    assert.ok(charged);
    await host.stop();
  });

  it('applies and publishes a new priority at once, without waiting for the next poll', async () => {
    const host = await startSimulator({ now: NIGHT_START, config: { seed: 4 } });
    await pollThrough(host, NIGHT_START, NIGHT_START + 10 * MINUTE, MINUTE);
    assert.ok(num(host, 'inverter_1/battery_power') < 0);
    await host.write('inverter_1/output_source_priority', 'Utility first');
    assert.equal(host.value('inverter_1/output_source_priority'), 'Utility first');
    assert.equal(num(host, 'inverter_1/battery_power'), 0);
    assert.equal(num(host, 'inverter_1/grid_power'), num(host, 'inverter_1/load_power'));
    assert.ok(num(host, 'inverter_2/battery_power') < 0, 'the other inverter keeps its own priority');
    await host.stop();
  });

  it('max_charge_current caps the charging power at current x battery voltage', async () => {
    const chargeAtNoon = async (amps: number) => {
      const host = await startSimulator({ config: { seed: 3, initialSoc: 15 } });
      await writeAll(host, 'max_charge_current', amps);
      assert.equal(host.value('inverter_1/max_charge_current'), amps);
      let most = 0;
      await pollThrough(host, MIDSUMMER + 9 * HOUR, MIDSUMMER + 13 * HOUR, MINUTE, () => {
        const voltage = num(host, 'battery_1/voltage');
        for (const id of inverterIds(host)) {
          const battery = num(host, `${id}/battery_power`);
          assert.ok(battery <= amps * voltage, `${id}: ${battery} W at ${amps} A and ${voltage} V`);
          most = Math.max(most, battery);
        }
      });
      await host.stop();
      return most;
    };
    const capped = await chargeAtNoon(10);
    const free = await chargeAtNoon(120);
    assert.ok(capped > 10 * 50 && capped < 10 * 56, `capped at ${capped} W`);
    assert.ok(free > 2 * capped, `uncapped ${free} W`);
  });

  it('remembers written settings across a restart', async () => {
    const host = await startSimulator({});
    await host.write('inverter_2/output_source_priority', 'Solar first');
    await host.write('inverter_2/max_charge_current', 30);
    await host.stop();
    const again = await startSimulator({ store: Object.fromEntries(host.store) });
    await pollThrough(again, MIDSUMMER, MIDSUMMER, 1);
    assert.equal(again.value('inverter_2/output_source_priority'), 'Solar first');
    assert.equal(again.value('inverter_2/max_charge_current'), 30);
    assert.equal(again.value('inverter_1/output_source_priority'), 'SBU priority');
    await again.stop();
  });

  it('continues from the stored battery state after a restart', async () => {
    const host = await startSimulator({ now: NIGHT_START, config: { initialSoc: 80 } });
    await pollThrough(host, NIGHT_START, NIGHT_START + 30 * MINUTE, MINUTE);
    const soc = num(host, 'battery_1/state_of_charge');
    assert.ok(soc < 80);
    await host.stop();
    const again = await startSimulator({
      now: NIGHT_START + 30 * MINUTE,
      config: { initialSoc: 80 },
      store: Object.fromEntries(host.store),
    });
    await pollThrough(again, NIGHT_START + 30 * MINUTE, NIGHT_START + 30 * MINUTE, 1);
    assert.equal(num(again, 'battery_1/state_of_charge'), soc);
    await again.stop();
  });
});

describe('declarations', () => {
  it('publishes every declared metric and setting from the poll job, each of its declared type', async () => {
    const host = await startSimulator({ devices: ['inverter_1', 'inverter_2', 'battery_1', 'battery_2'] });
    assert.deepEqual([...host.declarations.keys()].sort(), ['battery_1', 'battery_2', 'inverter_1', 'inverter_2']);
    await host.runJob('poll');
    for (const [device, declaration] of host.declarations) {
      for (const metric of declaration.metrics) {
        const value = host.value(`${device}/${metric.name}`);
        assert.equal(typeof value, metric.type ?? 'number', `${device}/${metric.name} is ${JSON.stringify(value)}`);
      }
      for (const setting of declaration.settings ?? [])
        assert.notEqual(host.value(`${device}/${setting.name}`) ?? null, null);
      assert.equal(declaration.pollIntervalMs, 5000);
    }
    const inverter = host.declarations.get('inverter_1')!;
    assert.deepEqual(
      inverter.metrics.filter((m) => m.group === 'Info').map((m) => m.name),
      [
        'firmware',
        'battery_capacity',
        'battery_max_charge_power',
        'battery_max_discharge_power',
        'battery_min_soc',
        'battery_control_lease',
      ],
    );
    assert.deepEqual(Object.keys(inverter.identity ?? {}), ['model', 'serial'], 'shown as model and serial_number');
    assert.equal(host.value('inverter_1/model'), 'Heliograph Sim 5K');
    assert.match(String(host.value('inverter_1/serial_number')), /^HGS\d{10}$/);
    assert.notEqual(host.value('inverter_1/serial_number'), host.value('inverter_2/serial_number'));
    assert.equal(host.value('inverter_1/firmware'), '1.0.0');
    await host.stop();
  });

  it('has a working handler for every setting, over its whole range', async () => {
    const host = await startSimulator({});
    await pollThrough(host, MIDSUMMER, MIDSUMMER, 1);
    for (const [device, declaration] of host.declarations) {
      // Battery control's settings come from the SDK's helper: battery-control.test.ts walks them.
      for (const setting of (declaration.settings ?? []).filter((s) => !s.name.startsWith('battery_control_'))) {
        const topic = `${device}/${setting.name}`;
        assert.notEqual(setting.kind, 'switch', `${topic}: the simulator declares no switches`);
        const values: Array<string | number> =
          setting.options !== undefined
            ? setting.options.map((o) => (typeof o === 'string' ? o : o.label))
            : 'step' in setting
              ? Array.from(
                  { length: (setting.max - setting.min) / setting.step! + 1 },
                  (_, i) => setting.min + i * setting.step!,
                )
              : [];
        assert.ok(values.length >= 3, topic);
        // Any kind's handler, called the way the core's write path calls it.
        const write = (args: { value: string | number; label: string; signal: AbortSignal }) =>
          (setting.write as (a: typeof args) => Promise<void>).call(setting, args);
        // In turn, so a handler that published nothing would leave the previous value.
        for (const value of values) {
          // Bypass the write path to see what the handler itself published.
          await write({ value, label: String(value), signal: host.ctx.signal });
          assert.equal(host.value(topic), value, `${topic} after writing ${value}`);
        }
      }
    }
    await host.stop();
  });
});
