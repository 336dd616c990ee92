// Site settings: name, location, time zone, temperature unit, when energy totals reset,
// and the price multiplier and offset. Saved with PUT /api/v1/config and applied by the
// service without a restart.

import { api, ApiError, errorText, loadFailure, type Issue } from '../api/client.js';
import { h, replace, showMessage, uid } from '../ui/dom.js';
import { clearIssues, showIssues } from '../ui/field-errors.js';
import type { ScreenContext } from '../state/screen-context.js';
import { loadSiteClock } from '../state/energy-data.js';
import type { PluginStatus, SiteConfig } from '../api/types.js';

type Kind =
  | { type: 'text' }
  | { type: 'number'; step: string; min?: number; max?: number; hint?: string; nullable?: boolean }
  | { type: 'select'; options: Array<[string, string]> };

type Section = 'site' | 'energy' | 'prices' | 'forecast' | 'alerts';

interface Setting {
  section: Section;
  key: string;
  label: string;
  kind: Kind;
  hint?: string;
}

/** The settings as GET /api/v1/config answers them: with the zone in force. */
type ConfigAnswer = SiteConfig & { time_zone?: string; system_time_zone?: string };

/**
 * The device's own zone, the default: said by the service (`system_time_zone`), or, while
 * no zone is chosen, the zone in force; undefined when neither tells.
 */
export function systemZone(current: ConfigAnswer): string | undefined {
  return current.system_time_zone ?? (current.site.timeZone === null ? current.time_zone : undefined);
}

/** Every zone the browser knows; '' is the device's own (`timeZone: null`), named where known. */
function timeZones(current: string | null, system: string | undefined): Array<[string, string]> {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const all = !current || zones.includes(current) ? zones : [current, ...zones];
  const own = system ? `The device’s own time zone (${system.replace(/_/g, ' ')})` : 'The device’s own time zone';
  return [['', own], ...all.map((z): [string, string] => [z, z.replace(/_/g, ' ')])];
}

/** Where the site is: its name, zone, position and temperature unit. */
function locationSettings(current: ConfigAnswer): Setting[] {
  const system = systemZone(current);
  return [
    {
      section: 'site',
      key: 'name',
      label: 'Site name',
      kind: { type: 'text' },
      hint: 'Shown to clients and in the sign-in realm.',
    },
    {
      section: 'site',
      key: 'timeZone',
      label: 'Time zone',
      kind: { type: 'select', options: timeZones(current.site.timeZone, system) },
      hint: `Days for energy totals and prices start at midnight here. The default is the device’s own zone${system ? `, ${system}` : ''}. A change applies from now on: past days keep the figures they were recorded with.`,
    },
    {
      section: 'site',
      key: 'latitude',
      label: 'Latitude',
      kind: { type: 'number', step: 'any', min: -90, max: 90 },
      hint: 'Degrees, north positive (for forecasts and the simulator’s sun).',
    },
    {
      section: 'site',
      key: 'longitude',
      label: 'Longitude',
      kind: { type: 'number', step: 'any', min: -180, max: 180 },
      hint: 'Degrees, east positive.',
    },
    {
      section: 'site',
      key: 'temperatureUnit',
      label: 'Temperature unit',
      kind: {
        type: 'select',
        options: [
          ['C', 'Celsius (°C)'],
          ['F', 'Fahrenheit (°F)'],
        ],
      },
    },
  ];
}

const ENERGY_SETTINGS: Setting[] = [
  {
    section: 'energy',
    key: 'resetPeriod',
    label: 'Energy totals reset',
    kind: {
      type: 'select',
      options: [
        ['daily', 'Every day at midnight'],
        ['weekly', 'Every Monday at midnight'],
        ['monthly', 'On the 1st of each month'],
      ],
    },
    hint: 'When the kWh counters restart. Past figures are kept as recorded, whatever this says later.',
  },
];

/** Multiplier and offset, and the export price where the service has it. */
function priceSettings(current: ConfigAnswer): Setting[] {
  return [
    {
      section: 'prices',
      key: 'multiplier',
      label: 'Price multiplier',
      kind: { type: 'number', step: 'any' },
      hint: 'Each raw price is multiplied by this (for example 1.19 for 19 % VAT)…',
    },
    {
      section: 'prices',
      key: 'offset',
      label: 'Price offset',
      kind: { type: 'number', step: 'any' },
      hint: '…then this is added (grid fees per kWh, in the price currency).',
    },
    // A service from before the export price setting has no such key (and refuses it).
    ...('exportPrice' in current.prices
      ? [
          {
            section: 'prices' as const,
            key: 'exportPrice',
            label: 'Export price (per kWh)',
            kind: { type: 'number' as const, step: 'any', min: -10, max: 10, nullable: true },
            hint: 'What each kWh sold to the grid earns, for a price provider without export prices (e.g. a feed-in tariff beside Tibber or aWATTar); multiplier and offset apply to it too. Applies from now on. Empty: sold energy is not priced.',
          },
        ]
      : []),
  ];
}

const ALERT_SETTINGS: Setting[] = [
  {
    section: 'alerts',
    key: 'batteryBelowPercent',
    label: 'Battery below (%)',
    kind: { type: 'number', step: 'any', min: 0, max: 100, nullable: true },
    hint: 'Alert while the battery’s charge is below this. Empty: no alert.',
  },
  {
    section: 'alerts',
    key: 'deviceUnavailableMinutes',
    label: 'Device not answering for (min)',
    kind: { type: 'number', step: 'any', min: 0, nullable: true },
    hint: 'Alert when a device has not answered for this long. Empty: no alert.',
  },
  {
    section: 'alerts',
    key: 'writeRefused',
    label: 'Refused writes',
    kind: {
      type: 'select',
      options: [
        ['true', 'Alert for 10 minutes'],
        ['false', 'No alert'],
      ],
    },
    hint: 'Alerts are shown on the Overview and published as system/alert_* topics (MQTT, Home Assistant).',
  },
];

/** Plugin instances that may publish grid prices or the forecast, by what they publish. */
type Sources = Record<'prices' | 'forecast', PluginStatus[]>;

function sourcesOf(plugins: PluginStatus[]): Sources {
  const publishing = (what: 'prices' | 'forecast') =>
    plugins.filter((p) => p.kind === what || p.grants?.approved[what] === true);
  return { prices: publishing('prices'), forecast: publishing('forecast') };
}

/**
 * Which instance's prices (forecast) the site uses, and the ones that fill its gaps; only
 * where the service has the choice (one from before it has no `source` key).
 */
function sourceSettings(current: ConfigAnswer, sources: Sources): Setting[] {
  return (['prices', 'forecast'] as const).flatMap((section): Setting[] => {
    const values = current[section] as { source?: string | null } | undefined;
    if (!values || !('source' in values)) return [];
    const what = section === 'prices' ? 'prices' : 'forecast';
    const ids = sources[section].map((p) => p.id);
    const chosen = values.source ?? '';
    const options: Array<[string, string]> = [
      ['', `Automatic: the first plugin that publishes ${what}`],
      ...(chosen && !ids.includes(chosen) ? [chosen] : []).map((id): [string, string] => [id, `${id} (not installed)`]),
      ...sources[section].map((p): [string, string] => [p.id, `${p.id} (${p.plugin})`]),
    ];
    return [
      {
        section,
        key: 'source',
        label: section === 'prices' ? 'Price source' : 'Forecast source',
        kind: { type: 'select', options },
        hint: `The plugin whose ${what} the site uses; the others are kept but not used (“Not in use” on the Plugins tab).`,
      },
      {
        section,
        key: 'fallbacks',
        label: section === 'prices' ? 'Price fallbacks' : 'Forecast fallbacks',
        kind: { type: 'text' },
        hint: `Plugin ids, separated by commas, used in this order where the source has nothing${ids.length ? ` (${ids.join(', ')})` : ''}.`,
      },
    ];
  });
}

function settings(current: ConfigAnswer, sources: Sources = { prices: [], forecast: [] }): Setting[] {
  return [
    ...locationSettings(current),
    ...ENERGY_SETTINGS,
    ...priceSettings(current),
    ...sourceSettings(current, sources),
    ...ALERT_SETTINGS,
  ];
}

export function mountSite(container: HTMLElement, ctx: ScreenContext): () => void {
  replace(container, h('p', { class: 'hint' }, 'Loading…'));
  void load(container, ctx);
  return () => undefined;
}

type Controls = Map<string, HTMLInputElement | HTMLSelectElement>;

/** A setting's labelled control, with its current value; added to `controls` by its path. */
function settingField(s: Setting, current: ConfigAnswer, controls: Controls): HTMLElement {
  const id = uid('site');
  const raw = (current[s.section] as Record<string, string | number | boolean | string[] | null | undefined>)[s.key];
  const value = typeof raw === 'boolean' ? String(raw) : Array.isArray(raw) ? raw.join(', ') : (raw ?? '');
  const control =
    s.kind.type === 'select'
      ? h(
          'select',
          { id },
          s.kind.options.map(([v, label]) => h('option', { value: v, selected: v === value }, label)),
        )
      : h('input', {
          id,
          type: s.kind.type,
          value: String(value),
          step: s.kind.type === 'number' ? s.kind.step : undefined,
          min: s.kind.type === 'number' ? s.kind.min : undefined,
          max: s.kind.type === 'number' ? s.kind.max : undefined,
          inputmode: s.kind.type === 'number' ? 'decimal' : undefined,
        });
  controls.set(`${s.section}.${s.key}`, control);
  const hintId = `${id}-hint`;
  if (s.hint) control.setAttribute('aria-describedby', hintId);
  return h(
    'div',
    { class: 'field', 'data-path': `${s.section}.${s.key}` },
    h('label', { for: id }, s.label),
    control,
    s.hint ? h('p', { class: 'hint', id: hintId }, s.hint) : null,
  );
}

/** The PUT /api/v1/config body from the controls, or the fields that hold no number. */
function readSettings(
  controls: Controls,
  sections: readonly Section[],
  current: ConfigAnswer,
): { body: Record<string, Record<string, unknown>>; issues: Issue[] } {
  const body: Record<string, Record<string, unknown>> = Object.fromEntries(sections.map((section) => [section, {}]));
  const issues: Issue[] = [];
  for (const [path, control] of controls) {
    const [section, key] = path.split('.') as [keyof typeof body, string];
    if (control instanceof HTMLInputElement && control.type === 'number') {
      const nullable = settings(current).find((x) => `${x.section}.${x.key}` === path)?.kind;
      if (control.value === '' && nullable?.type === 'number' && nullable.nullable) {
        body[section]![key] = null;
        continue;
      }
      if (control.value === '' || control.validity.badInput) {
        issues.push({ path: [section, key], message: 'Enter a number.' });
        continue;
      }
      body[section]![key] = Number(control.value);
    } else if (path === 'alerts.writeRefused') body[section]![key] = control.value === 'true';
    else if (key === 'fallbacks')
      body[section]![key] = control.value
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean);
    else
      body[section]![key] =
        (path === 'site.timeZone' || key === 'source') && control.value === '' ? null : control.value;
  }
  return { body, issues };
}

async function load(container: HTMLElement, ctx: ScreenContext): Promise<void> {
  let current: ConfigAnswer;
  try {
    current = await api<ConfigAnswer>('GET', '/config');
  } catch (err) {
    const failed = loadFailure(
      err,
      'load the site settings',
      'This version of Heliograph cannot change site settings from the page: edit config.json in its data directory and restart it.',
    );
    replace(container, h('p', { class: 'message info' }, failed.text));
    return;
  }
  const controls: Controls = new Map();
  const message = h('p', { class: 'message', hidden: true });
  const button = h('button', { type: 'submit' }, 'Save site settings');
  // The sources' choices name the instances; without the list the choice still shows the one chosen.
  const sources = sourcesOf(await api<PluginStatus[]>('GET', '/plugins').catch(() => []));
  // Alerts (and the forecast's source) only where the service has them.
  const sections = (['site', 'energy', 'prices', 'forecast', 'alerts'] as const).filter(
    (section) => current[section] && settings(current, sources).some((s) => s.section === section),
  );
  const fieldsets = sections.map((section) =>
    h(
      'fieldset',
      { class: 'fields card' },
      h(
        'legend',
        {},
        { site: 'Location', energy: 'Energy totals', prices: 'Grid prices', forecast: 'Forecast', alerts: 'Alerts' }[
          section
        ],
      ),
      settings(current, sources)
        .filter((s) => s.section === section)
        .map((s) => settingField(s, current, controls)),
    ),
  );
  const form = h(
    'form',
    { class: 'site-form', 'aria-label': 'Site settings', novalidate: true },
    fieldsets,
    h('div', { class: 'actions' }, button),
    message,
  );
  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    clearIssues(form);
    const { body, issues } = readSettings(controls, sections, current);
    if (issues.length) {
      showIssues(form, issues);
      showMessage(message, 'error', 'Not saved: correct the fields marked above.');
      return;
    }
    button.disabled = true;
    try {
      await api('PUT', '/config', { body });
      void loadSiteClock(true); // the calendar follows a new zone or reset period at once
      void ctx.statuses.refresh(); // a new price or forecast source changes the plugins' roles
      showMessage(message, 'ok', 'Saved and applied.');
    } catch (err) {
      const unmatched = err instanceof ApiError ? showIssues(form, err.issues) : [];
      showMessage(
        message,
        'error',
        err instanceof ApiError && err.issues.length && unmatched.length === 0
          ? 'Not saved: correct the fields marked above.'
          : `Not saved: ${errorText(err)}`,
      );
    } finally {
      button.disabled = false;
    }
  };
  // save shows its own failures on the page, so its promise can be let go.
  form.addEventListener('submit', (event) => void save(event));
  replace(container, form);
}
