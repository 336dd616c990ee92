// A deterministic year of a home solar system, every 10 s, for the history benchmark and for
// trying `heliograph history import`: PV following the sun (season, day length, clouds), house
// load (morning and evening peaks, appliance spikes), a 10 kWh battery (state of charge,
// voltage, power), the grid taking the rest, and the inverter's temperature.
//
// This is the generator the benchmark used to take from outside the repository, ported as it
// was: same PRNG (mulberry32, seed 20250101), same
// draws in the same order and the same arithmetic, so its five series come out identical and
// the benchmark's figures stay comparable with earlier runs. Grid and battery power are
// derived from them without further draws. Values are rounded to what a device reports
// (W, 0.1 %, 0.01 V, 0.1 degC).
//
// As a script: node test/dist/bench/gen-year.js [OUT_DIR] writes OUT_DIR/<series>.csv with
// lines "unix-seconds,value" (default OUT_DIR bench-data/year).
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const YEAR_START = Date.UTC(2025, 0, 1);
export const STEP_MS = 10_000;
export const READINGS_PER_TOPIC = (365 * 86_400_000) / STEP_MS; // 3 153 600

/** Every generated series, with the topic it is recorded as (signs as the registry's totals: grid > 0 imports, battery > 0 charges). */
export const YEAR_TOPICS = {
  pv_power: 'total/pv_power',
  load_power: 'total/load_power',
  battery_soc: 'total/battery_state_of_charge',
  battery_voltage: 'inverter_1/battery_voltage',
  inverter_temperature: 'inverter_1/temperature',
  grid_power: 'total/grid_power',
  battery_power: 'total/battery_power',
} as const;
export type YearSeries = keyof typeof YEAR_TOPICS;
export const UNITS: Record<YearSeries, string> = {
  pv_power: 'W',
  load_power: 'W',
  battery_soc: '%',
  battery_voltage: 'V',
  inverter_temperature: '°C',
  grid_power: 'W',
  battery_power: 'W',
};

/** One reading of every series at one instant. */
export type YearReading = { time: number } & Record<YearSeries, number>;

const STEP_S = STEP_MS / 1000;
const CAP_J = 10_000 * 3600; // a 10 kWh battery

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The year, one instant at a time, in time order. A generator rather than arrays: the whole
 * year is 22 million readings, and callers take it in slices. The same object is reused for
 * every instant: copy what you keep.
 */
export function* generateYear(seed = 20250101): Generator<Readonly<YearReading>> {
  const rnd = mulberry32(seed);
  const gauss = () => {
    // Box-Muller
    let u = 0;
    while (u === 0) u = rnd();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd());
  };
  let dayCloud = 1; // the day's clear-sky fraction
  let cloud = 1; // fast cloud process around it
  let spikeLeft = 0;
  let spikeW = 0;
  let soc = 60; // %
  let temp = 15; // inverter temperature, lagging its target
  const reading = {} as YearReading;
  for (let i = 0; i < READINGS_PER_TOPIC; i++) {
    const doy = Math.floor((i * STEP_S) / 86400);
    const sod = (i * STEP_S) % 86400; // second of the (UTC) day
    const season = Math.cos((2 * Math.PI * (doy - 171)) / 365); // +1 midsummer, -1 midwinter
    if (sod === 0) dayCloud = 0.25 + 0.75 * Math.pow(rnd(), 0.6);

    // PV: a sine bell from sunrise to sunset, seasonal height and day length, cloud noise.
    const dayLenH = 12 + 4 * season; // 8 h to 16 h
    const noon = 11.5 * 3600;
    const rise = noon - dayLenH * 1800;
    const set = noon + dayLenH * 1800;
    let pv = 0;
    cloud += 0.08 * (dayCloud - cloud) + 0.06 * gauss();
    if (cloud < 0.05) cloud = 0.05;
    if (cloud > 1.05) cloud = 1.05;
    if (sod > rise && sod < set) {
      const x = Math.sin((Math.PI * (sod - rise)) / (set - rise));
      const amp = 6000 * (0.55 + 0.45 * season);
      pv = amp * Math.pow(x, 1.4) * cloud;
      if (pv < 0) pv = 0;
    }
    const pvW = Math.round(pv);

    // Load: a base with morning and evening peaks, more in winter, and appliance spikes.
    const h = sod / 3600;
    const base =
      180 +
      120 * Math.exp(-Math.pow((h - 6.5) / 1.2, 2)) +
      350 * Math.exp(-Math.pow((h - 18.5) / 2.0, 2)) +
      80 * (season < 0 ? -season : 0);
    if (spikeLeft > 0) {
      spikeLeft--;
    } else if (rnd() < 0.004) {
      spikeLeft = 1 + Math.floor(rnd() * 40);
      spikeW = 300 + Math.floor(rnd() * 2700);
    } else {
      spikeW = 0;
    }
    const loadW = Math.max(50, Math.round(base + (spikeLeft > 0 ? spikeW : 0) + 25 * gauss()));

    // Battery: takes the surplus and covers the deficit between 10 % and 100 %.
    const socBefore = soc;
    soc += (((pvW - loadW) * STEP_S) / CAP_J) * 100 * 0.95;
    if (soc > 100) soc = 100;
    if (soc < 10) soc = 10;
    const batteryW = Math.round((((soc - socBefore) / 100) * CAP_J) / STEP_S / 0.95);
    let v = 48 + (8 * (soc - 10)) / 90 + (pvW - loadW) * 0.00012 + 0.015 * gauss();
    if (v < 47.5) v = 47.5;
    if (v > 56.5) v = 56.5;

    // Inverter temperature: seasonal ambient, a daily cycle and self-heating, lagging.
    const amb = 14 + 9 * season + 4 * Math.sin((2 * Math.PI * (sod - 9 * 3600)) / 86400);
    const target = amb + 12 + 18 * (pvW / 6000) + 2 * (loadW / 3000);
    temp += (target - temp) * 0.004 + 0.02 * gauss();

    reading.time = YEAR_START + i * STEP_MS;
    reading.pv_power = pvW;
    reading.load_power = loadW;
    reading.battery_soc = Math.round(soc * 10) / 10;
    reading.battery_voltage = Math.round(v * 100) / 100;
    reading.inverter_temperature = Math.round(temp * 10) / 10;
    reading.battery_power = batteryW;
    reading.grid_power = loadW - pvW + batteryW;
    yield reading;
  }
}

/** Writes the year as one CSV file per series ("unix-seconds,value" lines) into `dir`. */
export function writeYearCsv(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const names = Object.keys(YEAR_TOPICS) as YearSeries[];
  const files = names.map((name) => openSync(join(dir, `${name}.csv`), 'w'));
  const lines: string[][] = names.map(() => []);
  const drain = () => names.forEach((_, k) => (writeSync(files[k]!, lines[k]!.join('')), (lines[k]!.length = 0)));
  for (const reading of generateYear()) {
    const seconds = reading.time / 1000;
    names.forEach((name, k) => lines[k]!.push(`${seconds},${reading[name]}\n`));
    if (lines[0]!.length >= 20_000) drain();
  }
  drain();
  files.forEach((fd) => closeSync(fd));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = resolve(process.argv[2] ?? join('bench-data', 'year'));
  writeYearCsv(dir);
  console.log(`wrote ${READINGS_PER_TOPIC} readings x ${Object.keys(YEAR_TOPICS).length} series to ${dir}`);
}
