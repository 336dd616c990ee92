/*
 * The devices a plugin instance drives, as plugins.json assigns them. Re-exported from the
 * SDK's main entry.
 */
/**
 * A device this plugin instance drives. Its `id` (the topic prefix) comes from the instance
 * entry in plugins.json, never from the plugin, so numbering is stable across restarts.
 *
 * @example
 * for (const inv of ctx.devices.filter((d) => d.kind === 'inverter')) console.log(inv.id); // inverter_1
 */
export interface Device {
  /** Topic prefix, e.g. `inverter_1`, `battery_2` or a plugin's own kind's `planner_1`. */
  readonly id: string;
  /**
   * `inverter` or `battery`, whose topics feed the `total/*` topics, or a kind of the
   * plugin's own (`planner`, `ev_charger`) that the manifest's `devices.kinds` names.
   */
  readonly kind: DeviceKind;
  /** 0-based index among devices of its kind: `inverter_1` has 0. */
  readonly number: number;
  /** Display name, e.g. `Inverter 1`. */
  readonly name: string;
  /**
   * The device's own config from plugins.json (`{ "id": "inverter_1", "config": { "unitId": 2 } }`),
   * parsed by the plugin's `deviceConfigSchema`; `{}` when the entry is a plain id or the
   * plugin has no such schema.
   *
   * @example
   * const unitId = Number(device.config.unitId ?? 1);
   */
  readonly config: Record<string, unknown>;
}

/**
 * What a device says it is. Shown as the Info rows `<device>/manufacturer`, `/model`,
 * `/serial_number` and `/firmware_version` and in `GET /api/v1/plugins`; never nulled by
 * staleness or unavailability. Fields left out are not shown.
 *
 * @example
 * const identity: DeviceIdentity = { manufacturer: 'Deye', model: 'SUN-12K-SG04LP3', serial: '2305012345', firmware: '1.53' };
 */
export interface DeviceIdentity {
  manufacturer?: string;
  model?: string;
  serial?: string;
  firmware?: string;
  /**
   * What the device is reached through, as Home Assistant's `via_device`: another device of
   * this site by its id (`inverter_1` for a battery behind it; the MQTT bridge links the two)
   * or a gateway that is no device here (`Solarman logger 2712345678`). Shown as the Info row
   * `<device>/parent_device`.
   */
  parent?: string;
}

/**
 * What a device is: `inverter` and `battery` (the kinds the core derives `total/*` from), or
 * a kind of a plugin's own, lower snake case (`planner`, `ev_charger`), for a plugin whose
 * state should show in the API like a device's (a planner's plan, a charger's session).
 *
 * @example
 * const kind: DeviceKind = 'planner'; // devices planner_1, planner_2...
 */
export type DeviceKind = 'inverter' | 'battery' | (string & {});

/**
 * Kinds no plugin may take: the API's own topic prefixes (`total/*`, `grid/*`, `weather/*`,
 * `system/*`) and their clients' category names.
 *
 * @example
 * RESERVED_DEVICE_KINDS.includes('total'); // true
 */
export const RESERVED_DEVICE_KINDS: readonly string[] = [
  'total',
  'totals',
  'grid',
  'weather',
  'system',
  'inverters',
  'batteries',
];

/** A device kind: a lower-case letter, then lower-case letters, digits and single underscores. */
export const DEVICE_KIND_PATTERN = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/**
 * The device of an id `<kind>_<N>` (N from 1), as the core builds it from plugins.json:
 * `inverter_1`, `battery_2`, or a plugin's own kind's `planner_1`. Throws for any other form
 * and for a reserved kind (see {@link RESERVED_DEVICE_KINDS}).
 *
 * @example
 * deviceFromId('inverter_2'); // { id: 'inverter_2', kind: 'inverter', number: 1, name: 'Inverter 2', config: {} }
 * deviceFromId('ev_charger_1'); // { id: 'ev_charger_1', kind: 'ev_charger', number: 0, name: 'Ev charger 1', config: {} }
 */
export function deviceFromId(id: string): Device {
  const match = /^([a-z][a-z0-9_]*?)_([1-9]\d*)$/.exec(id);
  const kind = match?.[1];
  if (!match || !kind || !DEVICE_KIND_PATTERN.test(kind))
    throw new Error(`device id "${id}" is not of the form <kind>_<N>, such as inverter_1, battery_1 or planner_1`);
  if (RESERVED_DEVICE_KINDS.includes(kind))
    throw new Error(`device id "${id}": "${kind}" is reserved for the API's own topics; choose another kind`);
  const n = Number(match[2]);
  const label = kind.charAt(0).toUpperCase() + kind.slice(1).replaceAll('_', ' ');
  return { id, kind, number: n - 1, name: `${label} ${n}`, config: {} };
}
