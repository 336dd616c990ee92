/**
 * `device` and `number` of a topic as the official clients group by them (docs/api.md, "Metric
 * object"): the lower-case device category and the 0-based index of the
 * device within it. Clients build their own labels from these ("Inverters 1", "Totals"), so
 * a display name here would show up twice ("Inverter 1 1").
 */
export type DeviceCategory = 'inverters' | 'batteries' | 'totals' | 'grid' | 'weather' | 'system';

export interface DeviceFields {
  /**
   * A {@link DeviceCategory}; a plugin's own device kind (`planner` for `planner_1`); a prefix
   * outside the API's tree (an imported history topic) stands for itself.
   */
  device: DeviceCategory | (string & {});
  /** 0-based: `inverter_1` has 0. `null` where there is no numbered device (`total/*`). */
  number: number | null;
}

const NUMBERED: Record<string, DeviceCategory> = { inverter: 'inverters', battery: 'batteries' };
const SINGLE: Record<string, DeviceCategory> = { total: 'totals', grid: 'grid', weather: 'weather', system: 'system' };

/**
 * The fields of a device id (a topic's prefix): `inverter_2` -> inverters, 1; `total` ->
 * totals, null; a plugin's own kind `planner_1` -> planner, 0.
 */
export function deviceFields(deviceId: string): DeviceFields {
  const single = SINGLE[deviceId];
  if (single) return { device: single, number: null };
  const match = /^([a-z][a-z0-9_]*?)_([1-9]\d*)$/.exec(deviceId);
  if (!match) return { device: deviceId, number: null };
  // A plugin's own kind (`planner_1`) is its own category, named by the kind: `planner`, 0.
  return { device: NUMBERED[match[1]!] ?? match[1]!, number: Number(match[2]) - 1 };
}

/** {@link deviceFields} of a topic such as `inverter_1/pv_power`. */
export function deviceFieldsOfTopic(topic: string): DeviceFields {
  const slash = topic.indexOf('/');
  return deviceFields(slash > 0 ? topic.slice(0, slash) : topic);
}
