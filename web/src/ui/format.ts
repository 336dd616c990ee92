// Numbers as people read them: scaled to W/kW/MW and Wh/kWh/MWh, in the browser's locale,
// with signs said in words where the sign means a direction.

import type { Value } from '../api/types.js';

const formats = new Map<number, Intl.NumberFormat>();
function numberFormat(digits: number): Intl.NumberFormat {
  let format = formats.get(digits);
  if (!format)
    formats.set(
      digits,
      (format = new Intl.NumberFormat(undefined, { maximumFractionDigits: digits, minimumFractionDigits: 0 })),
    );
  return format;
}

/** A number in the locale's separators, at most `digits` decimals. */
export function formatNumber(value: number, digits = 2): string {
  return numberFormat(digits).format(value);
}

const SCALED: Record<string, string[]> = {
  W: ['W', 'kW', 'MW'],
  Wh: ['Wh', 'kWh', 'MWh'],
  kWh: ['kWh', 'MWh', 'GWh'],
};

/** Storage, scaled by 1024 as operating systems show it: 81,586 MB → "79.7 GB". */
const BINARY: Record<string, string[]> = {
  B: ['B', 'KB', 'MB', 'GB', 'TB'],
  KB: ['KB', 'MB', 'GB', 'TB'],
  MB: ['MB', 'GB', 'TB'],
  GB: ['GB', 'TB'],
};

/** Units as devices write them, as people read them. */
const UNIT_WORDS: Record<string, string> = { 'W/m2': 'W/m²', m2: 'm²', m3: 'm³', kmh: 'km/h', 'm3/h': 'm³/h' };

/** A unit as shown: "W/m2" → "W/m²". */
export function displayUnit(unit: string): string {
  return UNIT_WORDS[unit] ?? unit;
}

/** A value with its unit, scaled by thousands for power and energy: 1830 W → "1.83 kW". */
export function formatQuantity(value: number, unit: string): string {
  const binary = BINARY[unit];
  const steps = SCALED[unit] ?? binary;
  if (!steps) return unit ? `${formatNumber(value)} ${displayUnit(unit)}` : formatNumber(value);
  const base = binary ? 1024 : 1000;
  let scaled = value;
  let step = 0;
  while (Math.abs(scaled) >= base && step < steps.length - 1) {
    scaled /= base;
    step += 1;
  }
  const digits = step === 0 && unit === 'W' ? 0 : Math.abs(scaled) < 10 ? 2 : 1;
  return `${formatNumber(scaled, digits)} ${steps[step]}`;
}

/** Any metric value as shown: null as "—", yes/no for booleans, numbers scaled. */
export function formatValue(value: Value | undefined, unit = ''): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return value;
  return formatQuantity(value, unit);
}

/** What a signed power means, for topics whose sign is a direction. */
export function signWord(topic: string, value: Value | undefined): string | null {
  if (typeof value !== 'number' || value === 0) return null;
  const name = topic.split('/')[1] ?? '';
  if (name === 'grid_power') return value > 0 ? 'importing' : 'exporting';
  if (name === 'battery_power' || (topic.startsWith('battery_') && name === 'power'))
    return value > 0 ? 'charging' : 'discharging';
  return null;
}

/** A signed power as magnitude plus direction: -1200 on grid → "1.2 kW exporting". */
export function formatFlow(topic: string, value: Value | undefined, unit = 'W'): string {
  if (topic.endsWith('/is_day') && typeof value === 'number') return value ? 'day' : 'night';
  const word = signWord(topic, value);
  if (word === null) return formatValue(value, unit);
  return `${formatQuantity(Math.abs(value as number), unit)} ${word}`;
}

/** Local date and time of an RFC 3339 string, or "—". */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** "3 min ago", "at 14:02 yesterday"-style age of a time. */
export function formatAge(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min ago`;
  return `at ${new Date(ms).toLocaleString()}`;
}

/** A key like `pollIntervalMs` or `backfill_days` as words: "Poll interval (ms)", "Backfill days". */
export function humanizeKey(key: string): string {
  let words = key
    .replace(/_/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .trim();
  let unit = '';
  const units: Array<[RegExp, string]> = [
    [/ ms$/, 'ms'],
    [/ kwh$/, 'kWh'],
    [/ w$/, 'W'],
    [/ s$/, 's'],
  ];
  for (const [pattern, label] of units) {
    if (pattern.test(words)) {
      words = words.replace(pattern, '');
      unit = ` (${label})`;
      break;
    }
  }
  words = words
    .replace(/\bsoc\b/g, 'state of charge')
    .replace(/\bapi\b/g, 'API')
    .replace(/\bid\b/g, 'ID')
    .replace(/\bpv\b/g, 'PV');
  return words.charAt(0).toUpperCase() + words.slice(1) + unit;
}

/** WMO weather interpretation codes (as Open-Meteo uses them), in words. */
const WMO: Record<number, string> = {
  0: 'Clear sky',
  1: 'Mainly clear',
  2: 'Partly cloudy',
  3: 'Overcast',
  45: 'Fog',
  48: 'Rime fog',
  51: 'Light drizzle',
  53: 'Drizzle',
  55: 'Dense drizzle',
  56: 'Freezing drizzle',
  57: 'Freezing drizzle',
  61: 'Light rain',
  63: 'Rain',
  65: 'Heavy rain',
  66: 'Freezing rain',
  67: 'Freezing rain',
  71: 'Light snow',
  73: 'Snow',
  75: 'Heavy snow',
  77: 'Snow grains',
  80: 'Light showers',
  81: 'Showers',
  82: 'Violent showers',
  85: 'Snow showers',
  86: 'Heavy snow showers',
  95: 'Thunderstorm',
  96: 'Thunderstorm with hail',
  99: 'Thunderstorm with hail',
};

/** 93784 s → "1 d 2 h 3 min"; under a minute in seconds. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  const d = Math.floor(s / 86400);
  const hours = Math.floor((s % 86400) / 3600);
  const min = Math.floor((s % 3600) / 60);
  return [d ? `${d} d` : '', hours ? `${hours} h` : '', d === 0 && min ? `${min} min` : ''].filter(Boolean).join(' ');
}

/**
 * A reading as people read it, by what it is: identifiers as written (no thousands
 * separators), weather codes by name, durations in days and hours, the rest as formatFlow.
 */
export function formatReading(topic: string, value: Value | undefined, unit: string, info = false): string {
  if (typeof value === 'number') {
    if (info && unit === '') return String(value);
    if (unit === 'WMO code') return WMO[value] ?? `Weather code ${value}`;
    if (unit === 's' && topic.endsWith('uptime')) return formatDuration(value);
    if (unit === '' && /(^|_)id$/.test(topic.split('/')[1] ?? '')) return String(value);
  }
  return formatFlow(topic, value, unit);
}

/**
 * An audit entry's old or new value as words: a string as it is, a change to a structured
 * setting (saved as JSON text: an instance's grants, a backup schedule) as `key: value`
 * pairs, lists joined by commas, nested objects in parentheses. Nothing (null, '') is a dash.
 */
export function auditValueText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value !== 'string') return valueWords(value);
  if (!/^[[{]/.test(value)) return value;
  try {
    return valueWords(JSON.parse(value));
  } catch {
    return value;
  }
}

function valueWords(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map(valueWords).join(', ');
  if (value === null || typeof value !== 'object') return String(value);
  const entries = Object.entries(value);
  if (entries.length === 0) return 'none';
  return entries
    .map(([key, inner]) => {
      const words = valueWords(inner);
      return inner !== null && typeof inner === 'object' && !Array.isArray(inner)
        ? `${key} (${words})`
        : `${key}: ${words}`;
    })
    .join('; ');
}
