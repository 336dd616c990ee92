// Evidence in every map: each register-map driver's map carries reference points written from
// the vendor's public document (RegisterMap.references: address, type, scale, direction and
// the document's section). For every map, this test starts the family's emulated device on a
// Modbus TCP emulator, reads the map with the driver's own decoding (readRegisterMap), then
// reads each reference point's registers directly, decodes them by the reference alone and
// checks the driver's value (register-evidence.ts). So a map entry and an emulator built from
// it can no longer be wrong together: an entry at another address than the document's is
// reported as "the map reads it at A, the document at B", and its value differs.
//
// The clock: the emulated day runs from just after midnight in quarter hours (so today's
// energy counters hold energy) and stops at 09:00, 12:00 and 20:00 on midsummer day for a
// reading each: nothing moves between the driver's read and the reference reads of one
// instant. A register that reads 0 proves nothing (a wrong address may read 0 too), so each
// reference must read non-zero at one of the instants at least: the morning sun charging the
// battery, noon, and the evening load on it put power through the registers that one
// direction leaves at 0 (charge or discharge, import or export); a setting that reads 0 at
// 09:00 is given a non-zero value through the driver's own setting (the map's encoding and
// read-back). An emulator that still holds 0 there must be given a value.
// Coverage: at least 80 % of a map's register addresses (distinct table/address pairs,
// internal entries included, text entries such as serial numbers left out) must be named by a
// reference at the same address; the failure lists the others.
//
// Each map is its own test, so one family's missing table does not hide another's result, and
// each family's modules are loaded by name at run time (a missing "./register-map" export
// fails that family's test, not the file's compile). To add a family: one entry in CASES.
//
// Not here: SunSpec. Its driver has no hand-written register map: it walks the device's model
// chain and decodes each model by the sunspec/models JSON definitions, which are the public
// document itself; there is no address of ours to hold against a document. Nor the identity
// maps (serial number, device type code): read once at connection, they choose the map.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openModbus, readRegisterMap, type RegisterMap } from '@heliograph/plugins-sdk/connections';
import { startModbusEmulator, type ModbusDevice } from '@heliograph/plugins-sdk/emulator';
import { checkReferences, coverage, key, writeNonZero, type EvidenceReport } from './register-evidence.js';

type Module = Record<string, unknown>;
type Clock = () => Date;

interface EvidenceCase {
  title: string;
  /** The package: @heliograph/plugin-<family>. */
  family: string;
  /** The unit the map is read from. */
  unitId: number;
  /** The map, from the family's "./register-map" module. */
  map(maps: Module): RegisterMap;
  /**
   * Every unit of the emulated device, on `now`, from the family's "./emulator" module, and
   * what the owner changes at noon, before the reference points are read.
   */
  units(emulator: Module, now: Clock, maps: Module): { units: Map<number, ModbusDevice>; atNoon?: () => void };
}

const MIN_COVERAGE = 0.8;
const MIDNIGHT = new Date(2026, 5, 21, 0, 5);
/** Midsummer day: the morning sun charging a battery, noon at the sun's peak, the evening load on the battery. */
const INSTANTS = [9, 12, 20].map((hour) => new Date(2026, 5, 21, hour, 0));
const QUARTER_HOUR = 15 * 60_000;

/** `module[name]`, or an error naming the module that lacks it. */
function exported<T>(module: Module, name: string, from: string): T {
  if (!(name in module)) throw new Error(`${from} exports no "${name}"`);
  return module[name] as T;
}

type DeviceClass = new (options: Record<string, unknown>) => ModbusDevice;

/** A family whose emulator is one device class on one unit. */
function oneUnit(
  title: string,
  family: string,
  mapName: string,
  device: string,
  { unitId = 1, options = {} }: { unitId?: number; options?: Record<string, unknown> } = {},
): EvidenceCase {
  return {
    title,
    family,
    unitId,
    map: (maps) => exported<RegisterMap>(maps, mapName, `@heliograph/plugin-${family}/register-map`),
    units: (emulator, now) => {
      const Device = exported<DeviceClass>(emulator, device, `@heliograph/plugin-${family}/emulator`);
      return { units: new Map([[unitId, new Device({ now, ...options })]]) };
    },
  };
}

interface DeyeDevice extends ModbusDevice {
  settings: { workMode: number; maxChargeA: number; gridChargeA: number };
  tou: { write(address: number, value: number): void };
}

type DeyeModelId = 'single-phase' | 'three-phase-lv' | 'three-phase-hv';
/** DEYE_MODELS' time-of-use registers (models.ts TouRegisters): the timer, the grid charge switch, the slots' SOCs and flags. */
type DeyeModels = ReadonlyArray<{
  value: { id: DeyeModelId; tou: { enable: number; gridChargeEnabled: number; soc: number; flags: number } };
}>;

/**
 * A Deye of `model`, its owner's settings chosen so that every referenced register holds a
 * non-zero value at noon: a nearly empty battery imports from the grid at night; in the morning
 * it charges slowly (5 A), so the PV it does not take is sold; at noon the owner switches to
 * zero export to load (work mode 1, not 0) with the time-of-use slot from 12:00 charging from
 * the grid at 50 A, so that the grid, the battery and the PV all carry power at once.
 */
function deye(model: DeyeModelId): EvidenceCase {
  return {
    title: `deye ${model}`,
    family: 'deye',
    unitId: 1,
    map: (maps) =>
      exported<(options: object) => Record<string, RegisterMap>>(
        maps,
        'deyeMaps',
        '@heliograph/plugin-deye/register-map',
      )({ ratedW: 5000, gridPowerSource: 'auto' })[model]!,
    units: (emulator, now, maps) => {
      const models = exported<DeyeModels>(maps, 'DEYE_MODELS', '@heliograph/plugin-deye/register-map');
      const tou = models.find((m) => m.value.id === model)!.value.tou;
      const Device = exported<new (options: object) => DeyeDevice>(
        emulator,
        'DeyeDevice',
        '@heliograph/plugin-deye/emulator',
      );
      const device = new Device({ now, model, ratedW: 5000, peakPvW: 2000, soc: 15 });
      device.settings.maxChargeA = 5;
      const atNoon = () => {
        Object.assign(device.settings, { workMode: 1, maxChargeA: 50, gridChargeA: 50 });
        device.tou.write(tou.enable, 0xff); // on, every day
        device.tou.write(tou.gridChargeEnabled, 1);
        device.tou.write(tou.soc + 3, 100); // slot 4 (from 12:00) charges to 100 %
        device.tou.write(tou.flags + 3, 1); // from the grid
      };
      return { units: new Map([[1, device]]), atNoon };
    },
  };
}

const CASES: EvidenceCase[] = [
  deye('single-phase'),
  deye('three-phase-lv'),
  deye('three-phase-hv'),
  oneUnit('growatt SPH', 'growatt', 'sphMap', 'GrowattDevice', { options: { model: 'sph' } }),
  oneUnit('growatt SPA', 'growatt', 'spaMap', 'GrowattDevice', { options: { model: 'spa' } }),
  ...(
    [
      ['system', 'systemMap', 100],
      ['battery', 'batteryMap', 225],
      ['vebus', 'vebusMap', 227],
    ] as const
  ).map(([unit, mapName, unitId]): EvidenceCase => ({
    title: `victron ${unit} (unit ${unitId})`,
    family: 'victron',
    unitId,
    map: (maps) => exported<RegisterMap>(maps, mapName, '@heliograph/plugin-victron/register-map'),
    // One GX: the system, battery monitor and VE.Bus units over one site.
    units: (emulator, now) => {
      const Site = exported<new (options: object) => object>(
        emulator,
        'VictronSite',
        '@heliograph/plugin-victron/emulator',
      );
      const units = exported<(site: object) => Map<number, ModbusDevice>>(
        emulator,
        'victronUnits',
        '@heliograph/plugin-victron/emulator',
      );
      return { units: units(new Site({ now })) };
    },
  })),
  oneUnit('solis', 'solis', 'solisMap', 'SolisDevice'),
  // The GoodWe Wi-Fi/LAN module answers on unit 0xF7.
  oneUnit('goodwe', 'goodwe', 'goodweMap', 'GoodweDevice', { unitId: 0xf7 }),
  oneUnit('huawei', 'huawei', 'huaweiMap', 'HuaweiDevice'),
];

for (const c of CASES) {
  test(`${c.title}: each reference point of the map reads from the emulator as the driver decodes it`, async (t) => {
    let time = MIDNIGHT;
    const now = () => new Date(time);
    const maps = (await import(`@heliograph/plugin-${c.family}/register-map`)) as Module;
    const emulatorModule = (await import(`@heliograph/plugin-${c.family}/emulator`)) as Module;
    const map = c.map(maps);
    const { units, atNoon } = c.units(emulatorModule, now, maps);
    const emulator = await startModbusEmulator({ transport: 'tcp', units });
    t.after(() => emulator.close());
    const modbus = openModbus({ type: 'tcp', host: emulator.host, port: emulator.port });
    t.after(() => modbus.release());

    /** Runs the emulated day on to `until` in quarter hours (the device integrates its counters as it is read), then stops the clock there. */
    const runTo = async (until: Date) => {
      for (; time < until; time = new Date(Math.min(time.getTime() + QUARTER_HOUR, until.getTime())))
        await readRegisterMap(modbus, c.unitId, map);
    };
    const readings: Array<{ at: string; report: EvidenceReport }> = [];
    let writes: string[] = [];
    for (const instant of INSTANTS) {
      await runTo(instant);
      if (instant.getHours() === 12) atNoon?.();
      const report = await checkReferences(modbus, c.unitId, map);
      // A setting still at 0 after the first reading gets a non-zero value through the driver.
      if (readings.length === 0) writes = await writeNonZero(modbus, c.unitId, map, report.zeros);
      readings.push({ at: `${String(instant.getHours()).padStart(2, '0')}:00`, report });
    }

    const { addresses, uncovered } = coverage(map);
    const share = addresses === 0 ? 0 : (addresses - uncovered.length) / addresses;
    const percent = `${addresses - uncovered.length}/${addresses} = ${Math.round(share * 100)} %`;
    t.diagnostic(`${c.title}: ${map.references.length} references, coverage ${percent}`);
    const times = readings.map((r) => r.at).join(', ');
    const problems = [...new Set(readings.flatMap((r) => r.report.problems))].map((problem) => {
      const when = readings.filter((r) => r.report.problems.includes(problem)).map((r) => r.at);
      return when.length === readings.length ? problem : `at ${when.join(', ')}: ${problem}`;
    });
    const zeros = readings[0]!.report.zeros.filter((reference) =>
      readings.every((r) => r.report.zeros.includes(reference)),
    );
    const failures = [
      ...problems,
      ...writes,
      ...zeros.map(
        (reference) =>
          `${key(reference.device, reference.name)} at ${reference.address} (${reference.table ?? 'holding'}): ` +
          `reads 0 at ${times}, which a wrong address may read too: give it a value in the emulator`,
      ),
      ...(share < MIN_COVERAGE
        ? [`coverage ${percent}, below ${MIN_COVERAGE * 100} %; no reference for: ${uncovered.join('; ')}`]
        : []),
    ];
    if (failures.length > 0) assert.fail(`${c.title}:\n  ${failures.join('\n  ')}`);
  });
}
