// SunSpec devices as two brands lay them out, built from the SunSpec model definitions
// (sunspec/models json: model 1 common, 103 three-phase inverter, 160 multiple MPPT with its
// 20-register modules ID, IDStr, DCA, DCV, DCW, ..., 203 wye meter with W at offset 16 and
// W_SF at 20): a Fronius GEN24 that reports its battery as model 160 modules `StCha 3` and
// `StDisCha 4`, and a SolarEdge whose meter counts export as positive.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ModbusException,
  ModbusExceptionCode,
  startModbusEmulator,
  textWords,
  toWord,
  type ModbusDevice,
} from '@heliograph/plugins-sdk/emulator';
import { startTestHost } from '@heliograph/plugins-sdk/testing';
import sunspec from '@heliograph/plugin-sunspec';

const common = (manufacturer: string) => [
  ...textWords(manufacturer, 16),
  ...textWords('Model', 16),
  ...textWords('', 8),
  ...textWords('1.0', 8),
  ...textWords('SN-1', 16),
  1,
  0x8000,
];

/** Model 103 with W 4000 and DCW 4100 (scale factors 0), everything else 0. */
function model103(): number[] {
  const m = Array<number>(50).fill(0);
  m[12] = 4000; // W
  m[29] = 4100; // DCW
  return m;
}

/** Model 160 with the given modules: [IDStr, DCW]. */
function model160(modules: Array<[string, number]>): number[] {
  const fixed = [0, 0, 0, 0, 0, 0, modules.length, 0];
  const body = modules.flatMap(([id, watts], i) => {
    const m = Array<number>(20).fill(0);
    m[0] = i + 1;
    m.splice(1, 8, ...textWords(id, 8));
    m[9] = 10;
    m[10] = 400;
    m[11] = watts;
    return m;
  });
  return [...fixed, ...body];
}

/** Model 203 with total W `watts` (W_SF 0). */
function model203(watts: number): number[] {
  const m = Array<number>(105).fill(0);
  m[16] = toWord(watts);
  return m;
}

function device(models: Array<[number, number[]]>): ModbusDevice {
  const image = [0x5375, 0x6e53, ...models.flatMap(([id, words]) => [id, words.length, ...words]), 0xffff, 0];
  return {
    readHoldingRegisters({ address, count }) {
      const from = address - 40000;
      if (from < 0 || from + count > image.length)
        throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
      return image.slice(from, from + count);
    },
    writeRegisters() {
      throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
    },
  };
}

async function hostFor(d: ModbusDevice, config: Record<string, unknown> = {}) {
  const emulator = await startModbusEmulator({ transport: 'tcp', units: new Map([[1, d]]) });
  after(() => emulator.close());
  const host = await startTestHost({
    plugin: sunspec,
    devices: ['inverter_1', 'battery_1'],
    config: { connection: { type: 'tcp', host: emulator.host, port: emulator.port }, timeoutMs: 400, ...config },
  });
  after(() => host.stop());
  return host;
}

test('Fronius GEN24: StCha 3 / StDisCha 4 are the battery, not PV', async () => {
  const modules: Array<[string, number]> = [
    ['MPPT 1', 2000],
    ['MPPT 2', 1500],
    ['StCha 3', 800],
    ['StDisCha 4', 0],
  ];
  const host = await hostFor(
    device([
      [1, common('Fronius')],
      [103, model103()],
      [160, model160(modules)],
    ]),
  );
  await host.runJob('poll');
  assert.equal(host.value('inverter_1/pv_power'), 3500);
  assert.equal(host.value('inverter_1/pv_power_3') ?? null, null, 'no third PV input');
  assert.equal(host.value('inverter_1/battery_power'), 800, '+ charging');
  assert.equal(host.value('battery_1/power'), 800);
});

test('a SolarEdge meter counts export positive: detected from the manufacturer, or set per instance', async () => {
  const exporting = (manufacturer: string) =>
    device([
      [1, common(manufacturer)],
      [103, model103()],
      [203, model203(1500)],
    ]);
  const solarEdge = await hostFor(exporting('SolarEdge'));
  await solarEdge.runJob('poll');
  assert.equal(solarEdge.value('inverter_1/grid_power'), -1500, 'export is negative in Heliograph');
  assert.equal(solarEdge.value('inverter_1/load_power'), 2500);

  const other = await hostFor(exporting('Other'), { meterSign: 'export-positive' });
  await other.runJob('poll');
  assert.equal(other.value('inverter_1/grid_power'), -1500);
});
