/**
 * A seeded year of quarter-hour site data for the planner's benchmark and tests: a
 * day-ahead price curve with morning and evening peaks and negative hours on sunny
 * weekends, PV from the sun's path with cloudy days, and a household load profile.
 * The same seed always gives the same year.
 */
import { LocalCalendar } from './load-forecast.js';

export interface YearData {
  /** Quarter-hour starts, Unix ms (UTC). */
  times: number[];
  /** Day-ahead spot price, currency per kWh (negative in some hours). */
  spot: number[];
  /** What the household pays per kWh imported: spot plus fees and VAT. */
  importPrice: number[];
  /** What it is paid per kWh exported: the spot price (negative means export costs). */
  exportPrice: number[];
  /** PV power, kW. */
  pvKw: number[];
  /** Household load, kW. */
  loadKw: number[];
}

export interface YearOptions {
  seed: number;
  /** First day (local midnight is derived from it), default 2025-01-01. */
  startUtc?: number;
  days?: number;
  timeZone?: string;
  latitude?: number;
  longitude?: number;
  pvPeakKw?: number;
}

/** A small fast seeded generator (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(rand: () => number): number {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

const QUARTER = 15 * 60_000;
const DAY = 86_400_000;

/** Sun elevation (radians) at a UTC time and place, by the usual declination/hour-angle model. */
export function sunElevation(time: number, latitude: number, longitude: number): number {
  const dayOfYear = (time - Date.UTC(new Date(time).getUTCFullYear(), 0, 1)) / DAY;
  const decl = ((23.44 * Math.PI) / 180) * Math.sin(((2 * Math.PI) / 365) * (dayOfYear - 81));
  const utcHours = (time % DAY) / 3_600_000;
  const solarHours = utcHours + longitude / 15;
  const hourAngle = ((solarHours - 12) * 15 * Math.PI) / 180;
  const lat = (latitude * Math.PI) / 180;
  return Math.asin(Math.sin(lat) * Math.sin(decl) + Math.cos(lat) * Math.cos(decl) * Math.cos(hourAngle));
}

export function generateYear(opts: YearOptions): YearData {
  const rand = seededRandom(opts.seed);
  const start = opts.startUtc ?? Date.UTC(2025, 0, 1);
  const days = opts.days ?? 365;
  const zone = opts.timeZone ?? 'Europe/Berlin';
  const lat = opts.latitude ?? 50.1;
  const lon = opts.longitude ?? 8.7;
  const peak = opts.pvPeakKw ?? 8;
  const cal = new LocalCalendar(zone);
  const out: YearData = { times: [], spot: [], importPrice: [], exportPrice: [], pvKw: [], loadKw: [] };

  let weather = 0.5; // 0 = overcast, 1 = clear; a slow random walk from day to day
  let dayIndex = -1;
  let clear = 1;
  let dayLevel = 0;
  let appliance = { from: -1, to: -1, kw: 0 };
  for (let time = start; time < start + days * DAY; time += QUARTER) {
    const pos = cal.position(time + QUARTER / 2);
    const hour = pos.minute / 60;
    const weekday = new Date(pos.day * DAY).getUTCDay();
    const weekend = weekday === 0 || weekday === 6;
    const yearStart = Date.UTC(new Date(time).getUTCFullYear(), 0, 1);
    const season = Math.cos((2 * Math.PI * (time - yearStart + 10 * DAY)) / (365 * DAY)); // 1 in winter, -1 in summer
    if (Math.floor((time - start) / DAY) !== dayIndex) {
      dayIndex = Math.floor((time - start) / DAY);
      weather = Math.min(1, Math.max(0, 0.6 * weather + 0.4 * rand() + 0.1 * (0.5 - season) * 0.5));
      clear = 0.15 + 0.85 * weather;
      dayLevel = 0.02 * gaussian(rand);
      const runs = rand() < 0.4;
      const at = 8 + rand() * 12;
      appliance = runs ? { from: at, to: at + 1 + rand(), kw: 1.5 + rand() } : { from: -1, to: -1, kw: 0 };
    }
    // PV: clear-sky output along the sun's path, scaled by the day's weather and passing clouds.
    const elev = sunElevation(time + QUARTER / 2, lat, lon);
    const clearSky = elev > 0 ? Math.pow(Math.sin(elev), 1.15) * peak * 0.9 : 0;
    const passing = weather > 0.3 && weather < 0.8 ? 0.6 + 0.4 * rand() : 0.95 + 0.05 * rand();
    const pv = Math.max(0, clearSky * clear * passing);

    // Spot price: night trough, morning and evening peaks, a solar dip at noon that goes
    // negative on sunny weekend days in spring and summer.
    const base = 0.09 + 0.03 * season + dayLevel - (weekend ? 0.015 : 0);
    const morning = 0.05 * bump(hour, 8, 1.3);
    const evening = (0.11 + 0.04 * season) * bump(hour, 19, 1.8);
    const solarDip = (0.07 * weather * weather + 0.015) * (1 - season) * bump(hour, 13, 2.5) * (weekend ? 1.5 : 1);
    const night = -0.02 * bump(hour, 3, 2);
    const spot = round4(base + morning + evening - solarDip + night + 0.008 * gaussian(rand));

    // Load: base load, morning and evening peaks, more in winter and at weekends' midday,
    // an appliance run on some days, and quarter-hour noise.
    let load = 0.25 + 0.08 * season;
    load += 0.6 * bump(hour, 7.5, 0.8) + (0.9 + 0.2 * season) * bump(hour, 19.5, 1.6);
    load += (weekend ? 0.5 : 0.15) * bump(hour, 12.5, 1.5);
    if (hour >= appliance.from && hour < appliance.to) load += appliance.kw;
    load = Math.max(0.12, load * (1 + 0.15 * gaussian(rand)));

    out.times.push(time);
    out.spot.push(spot);
    out.importPrice.push(round4(1.19 * (spot + 0.12)));
    out.exportPrice.push(spot);
    out.pvKw.push(round4(pv));
    out.loadKw.push(round4(load));
  }
  return out;
}

/** A smooth bump of height 1 at `center` hours with a width of about `width` hours. */
function bump(hour: number, center: number, width: number): number {
  const d = hour - center;
  return Math.exp(-(d * d) / (2 * width * width));
}

function round4(v: number): number {
  return Math.round(v * 10_000) / 10_000;
}

export interface TemperatureOptions {
  seed: number;
  /** The quarter hours to give a temperature for (a year's `times`). */
  times: readonly number[];
  timeZone?: string;
}

/**
 * Outside temperature, °C, at each of `times`: a Central European lowland climate (about
 * 1.5 °C in mid-January, 20 °C in mid-July, 10.5 °C over the year), a daily cycle coldest
 * before sunrise and warmest mid-afternoon (5 K from low to high in winter, 10 K in summer,
 * wider on clear days), and spells of warmer or colder weather that last days (a random
 * process with a 3-day memory and a spread of 3.5 K, 4 K in winter). Drawn from a generator of
 * its own, so the year's other series come out as without it.
 */
export function generateTemperature(opts: TemperatureOptions): number[] {
  const rand = seededRandom(opts.seed ^ 0x5eed7e);
  const cal = new LocalCalendar(opts.timeZone ?? 'Europe/Berlin');
  const out: number[] = [];
  const memoryDays = 3;
  const step = QUARTER / DAY / memoryDays;
  let spell = 0;
  let day = Number.NaN;
  let clearness = 1;
  for (const time of opts.times) {
    const pos = cal.position(time + QUARTER / 2);
    if (pos.day !== day) {
      day = pos.day;
      clearness = 0.5 + 0.8 * rand();
    }
    const yearStart = Date.UTC(new Date(time).getUTCFullYear(), 0, 1);
    const winter = Math.cos((2 * Math.PI * (time - yearStart - 15 * DAY)) / (365 * DAY)); // 1 mid-January
    const spread = 3.5 + 0.5 * winter;
    spell += -spell * step + spread * Math.sqrt(2 * step) * gaussian(rand);
    const halfRange = (3.75 - 1.25 * winter) * clearness;
    const daily = halfRange * Math.cos((2 * Math.PI * (pos.minute / 60 - 15)) / 24);
    out.push(Math.round((10.5 - 9 * winter + daily + spell + 0.15 * gaussian(rand)) * 10) / 10);
  }
  return out;
}

export interface HeatPumpOptions {
  /** The house's heat loss, W per K of outside below its heating limit (default 160: a 2000s house of 150 m²). */
  lossWPerK?: number;
  /** The outside temperature above which the house needs no heating, °C (default 15). */
  heatingLimitC?: number;
  timeZone?: string;
  seed?: number;
}

/**
 * The year with a heat pump's electric power added to the load (kW): the heat the house
 * loses (`lossWPerK` times how far the outside, lagged by the building's mass over some 10
 * hours, is below `heatingLimitC`) over a COP that falls with the cold (3.2 at 0 °C, 0.08 a K,
 * 2 to 5), at 70 % from 22:00 to 05:00 (a night setback) and 130 % from 05:00 to 08:00 (the
 * house warmed back up), with 10 % noise per quarter hour (the compressor's cycling).
 */
export function withHeatPump(year: YearData, outsideC: readonly number[], opts: HeatPumpOptions = {}): YearData {
  const loss = opts.lossWPerK ?? 160;
  const limit = opts.heatingLimitC ?? 15;
  const cal = new LocalCalendar(opts.timeZone ?? 'Europe/Berlin');
  const rand = seededRandom((opts.seed ?? 1) ^ 0x4ea7);
  const lag = QUARTER / (10 * 3_600_000);
  let felt = outsideC[0] ?? limit;
  const loadKw = year.loadKw.map((kw, i) => {
    felt += ((outsideC[i] ?? felt) - felt) * lag;
    const hour = cal.position(year.times[i]! + QUARTER / 2).minute / 60;
    const setback = hour >= 22 || hour < 5 ? 0.7 : hour < 8 ? 1.3 : 1;
    const cop = Math.min(5, Math.max(2, 3.2 + 0.08 * (outsideC[i] ?? felt)));
    const heatW = Math.max(0, limit - felt) * loss * setback;
    const electricW = (heatW / cop) * Math.max(0, 1 + 0.1 * gaussian(rand));
    return round4(kw + electricW / 1000);
  });
  return { ...year, loadKw };
}
