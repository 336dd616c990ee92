/*
 * A charger device's topics and settings, as data beside their handlers (docs/api.md lists
 * them under "EV chargers"). The owner's settings are kept by ChargerDevice; the commands
 * (current_limit, clear_profiles, availability, transaction, trigger_message) go to the charger.
 */
import type { Device, DeviceDeclaration, MetricDeclaration, SettingDeclaration } from '@heliograph/plugins-sdk';
import type { ChargerLink } from './charger-link.js';
import type { ChargerConfig } from './config.js';
import { DEADLINES, type OwnerSettings, type PhaseChoice } from './owner-settings.js';
import { CHARGE_MODES, type ChargeMode } from './charging-rules.js';

/** What the declarations' handlers call: the charger device (charger-device.ts). */
export interface ChargerDevice {
  readonly device: Device;
  readonly charger: ChargerConfig;
  readonly link: ChargerLink;
  readonly owner: Readonly<OwnerSettings>;
  readonly maxPowerW: number;
  changeSettings(change: Partial<OwnerSettings>): Promise<void>;
  setPlannedPower(powerW: number): void;
  sendLimit(currentA: number): Promise<void>;
}

const METRICS: MetricDeclaration[] = [
  { name: 'status', displayName: 'Status', type: 'string' },
  { name: 'online', displayName: 'Online', type: 'boolean' },
  { name: 'car_connected', displayName: 'Car connected', type: 'boolean' },
  { name: 'power', displayName: 'Charging power', unit: 'W' },
  { name: 'session_energy', displayName: 'Session energy', unit: 'kWh', stateClass: 'total_increasing' },
  { name: 'meter_energy', displayName: 'Meter energy', unit: 'kWh', stateClass: 'total_increasing' },
  { name: 'current_l1', displayName: 'Current L1', unit: 'A' },
  { name: 'current_l2', displayName: 'Current L2', unit: 'A' },
  { name: 'current_l3', displayName: 'Current L3', unit: 'A' },
  { name: 'vehicle_soc', displayName: 'Vehicle state of charge', unit: '%' },
  { name: 'active_phases', displayName: 'Phases in use' },
  { name: 'reason', displayName: 'Reason', type: 'string' },
  { name: 'plan', displayName: 'Plan target', type: 'string' },
  { name: 'lease_end', displayName: 'Profile holds until', type: 'string' },
];

export function chargerDeclaration(device: ChargerDevice): DeviceDeclaration {
  return {
    device: device.device.id,
    identity: { manufacturer: 'OCPP 1.6J charge point', model: device.charger.chargePointId },
    pollIntervalMs: 60_000,
    metrics: METRICS,
    settings: [...ownerSettings(device), plannedPower(device), ...commands(device)],
  };
}

/** What the owner sets; kept by ChargerDevice. */
function ownerSettings(device: ChargerDevice): SettingDeclaration[] {
  const { charger } = device;
  const s = device.owner;
  const amps = { unit: 'A', min: 6, max: charger.maxCurrentA, step: 1 };
  return [
    {
      name: 'mode',
      displayName: 'Charging mode',
      options: CHARGE_MODES,
      initial: s.mode,
      write: ({ value }) => device.changeSettings({ mode: value as ChargeMode }),
    },
    {
      name: 'min_current',
      displayName: 'Minimum current',
      ...amps,
      initial: s.minCurrentA,
      write: ({ value }) => device.changeSettings({ minCurrentA: value }),
    },
    {
      name: 'max_current',
      displayName: 'Maximum current',
      ...amps,
      initial: s.maxCurrentA,
      write: ({ value }) => device.changeSettings({ maxCurrentA: value }),
    },
    ...(charger.canSwitchPhases
      ? [
          {
            name: 'phases',
            displayName: 'Phases',
            options: ['auto', '1', '3'],
            initial: s.phases,
            write: ({ value }: { value: string | number }) =>
              device.changeSettings({ phases: String(value) as PhaseChoice }),
          },
        ]
      : []),
    {
      name: 'plan_energy',
      displayName: 'Plan: energy to add',
      unit: 'kWh',
      min: 0,
      max: 150,
      step: 1,
      initial: s.planEnergyKWh,
      write: ({ value }) => device.changeSettings({ planEnergyKWh: value }),
    },
    {
      name: 'plan_soc',
      displayName: 'Plan: vehicle charge',
      unit: '%',
      min: 0,
      max: 100,
      step: 1,
      initial: s.planSoc,
      deviceClass: null,
      write: ({ value }) => device.changeSettings({ planSoc: value }),
    },
    {
      name: 'plan_deadline',
      displayName: 'Plan: ready by',
      options: DEADLINES,
      initial: s.planDeadline,
      write: ({ value }) => device.changeSettings({ planDeadline: String(value) }),
    },
    {
      kind: 'switch',
      name: 'allow_battery_to_car',
      displayName: 'Home battery may charge the car',
      initial: s.allowBatteryToCar,
      write: ({ value }) => device.changeSettings({ allowBatteryToCar: value }),
    },
  ];
}

/** The planner's power for this quarter hour in mode `planned` (README: the planner's interface). */
function plannedPower(device: ChargerDevice): SettingDeclaration {
  return {
    name: 'planned_power',
    displayName: 'Planned power',
    unit: 'W',
    min: 0,
    max: device.maxPowerW,
    step: 1,
    write: ({ value }) => Promise.resolve(device.setPlannedPower(value)),
  };
}

/** The settings that send a command to the charger (the write resolves once it accepted). */
function commands(device: ChargerDevice): SettingDeclaration[] {
  const { link } = device;
  return [
    {
      name: 'current_limit',
      displayName: 'Current limit (profile)',
      unit: 'A',
      min: 0,
      max: device.charger.maxCurrentA,
      step: 1,
      write: ({ value }) => device.sendLimit(value),
    },
    {
      name: 'clear_profiles',
      displayName: 'Clear Heliograph’s profiles',
      options: ['Clear'],
      write: () => link.clearProfiles(),
    },
    {
      name: 'availability',
      displayName: 'Availability',
      options: ['Operative', 'Inoperative'],
      write: ({ value }) => link.changeAvailability(value as 'Operative' | 'Inoperative'),
    },
    {
      kind: 'switch',
      name: 'transaction',
      displayName: 'Charging session',
      on: 'Start',
      off: 'Stop',
      write: ({ value }) => (value ? link.remoteStart() : link.remoteStop()),
    },
    {
      name: 'trigger_message',
      displayName: 'Ask the charger for',
      options: ['BootNotification', 'Heartbeat', 'MeterValues', 'StatusNotification'],
      write: ({ value }) => link.trigger(String(value)),
    },
  ];
}
