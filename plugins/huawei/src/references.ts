/*
 * The evidence of the register maps (register-map.ts): each register as the public definition
 * places it, written from wlcrs/huawei-solar-lib src/huawei_solar/registers.py (and
 * register_values.py for the enumerations), not from the map's entries, so a generic test can
 * read each point from the emulator and check the driver's decoded value.
 */
import type { RegisterReference } from '@heliograph/plugins-sdk/connections';

const LIB = 'wlcrs/huawei-solar-lib src/huawei_solar/registers.py';

/** The identity map's: the rated power (the model and serial are strings, which references do not cover). */
export const identityReferences: RegisterReference[] = [
  { name: 'rated_power', address: 30073, type: 'u32', source: `${LIB}: rn.RATED_POWER: U32Register("W", 1, 30073)` },
];

/**
 * The poll map's. The forcible command (47100, read by battery control) has none: it reads 0
 * (stop) on a unit at rest, which proves nothing; battery control's tests read it from the
 * emulator's registers as registers.py places it.
 */
export const mapReferences: RegisterReference[] = [
  {
    name: 'pv_voltage_1',
    address: 32016,
    type: 's16',
    scale: 0.1,
    source: `${LIB}: rn.PV_01_VOLTAGE: I16Register("V", 10, 32016)`,
  },
  {
    name: 'pv_current_1',
    address: 32017,
    type: 's16',
    scale: 0.01,
    source: `${LIB}: rn.PV_01_CURRENT: I16Register("A", 100, 32017)`,
  },
  {
    name: 'pv_voltage_2',
    address: 32018,
    type: 's16',
    scale: 0.1,
    source: `${LIB}: rn.PV_02_VOLTAGE: I16Register("V", 10, 32018)`,
  },
  {
    name: 'pv_current_2',
    address: 32019,
    type: 's16',
    scale: 0.01,
    source: `${LIB}: rn.PV_02_CURRENT: I16Register("A", 100, 32019)`,
  },
  { name: 'pv_power', address: 32064, type: 's32', source: `${LIB}: rn.INPUT_POWER: I32Register("W", 1, 32064)` },
  {
    name: 'grid_voltage',
    address: 32066,
    type: 'u16',
    scale: 0.1,
    source: `${LIB}: rn.GRID_VOLTAGE: U16Register("V", 10, 32066)`,
  },
  { name: 'output_power', address: 32080, type: 's32', source: `${LIB}: rn.ACTIVE_POWER: I32Register("W", 1, 32080)` },
  {
    name: 'grid_frequency',
    address: 32085,
    type: 'u16',
    scale: 0.01,
    source: `${LIB}: rn.GRID_FREQUENCY: U16Register("Hz", 100, 32085)`,
  },
  {
    name: 'temperature',
    address: 32087,
    type: 's16',
    scale: 0.1,
    source: `${LIB}: rn.INTERNAL_TEMPERATURE: I16Register("°C", 10, 32087)`,
  },
  {
    name: 'device_mode',
    address: 32089,
    type: 'u16',
    labels: { 0x0200: 'On-grid' },
    source: `${LIB}: rn.DEVICE_STATUS: U16Register(rv.DEVICE_STATUS_DEFINITIONS, 1, 32089); register_values.py 0x0200: "On-grid"`,
  },
  {
    name: 'pv_energy_total',
    address: 32106,
    type: 'u32',
    scale: 0.01,
    source: `${LIB}: rn.ACCUMULATED_YIELD_ENERGY: U32Register("kWh", 100, 32106)`,
  },
  {
    name: 'pv_energy_today',
    address: 32114,
    type: 'u32',
    scale: 0.01,
    source: `${LIB}: rn.DAILY_YIELD_ENERGY: U32Register("kWh", 100, 32114)`,
  },
  {
    name: 'temperature',
    device: 'battery',
    address: 37022,
    type: 's16',
    scale: 0.1,
    source: `${LIB}: rn.STORAGE_UNIT_1_BATTERY_TEMPERATURE: I16Register("°C", 10, 37022)`,
  },
  {
    name: 'meter_status',
    address: 37100,
    type: 'u16',
    labels: { 0: 'Offline', 1: 'Normal' },
    source: `${LIB}: rn.METER_STATUS: U16Register(rv.MeterStatus, 1, 37100); register_values.py MeterStatus`,
  },
  {
    name: 'meter_voltage',
    address: 37101,
    type: 's32',
    scale: 0.1,
    source: `${LIB}: rn.GRID_A_VOLTAGE: I32Register("V", 10, 37101)`,
  },
  {
    name: 'grid_power',
    address: 37113,
    type: 's32',
    opposite: true,
    source: `${LIB}: rn.POWER_METER_ACTIVE_POWER: I32Register("W", 1, 37113); + feeding the grid, as evcc-io/evcc templates/definition/meter/huawei-sun2000-hybrid.yaml reads it (scale -1 for + import)`,
  },
  {
    name: 'grid_frequency_meter',
    address: 37118,
    type: 's16',
    scale: 0.01,
    source: `${LIB}: rn.ACTIVE_GRID_FREQUENCY: I16Register("Hz", 100, 37118)`,
  },
  {
    name: 'grid_export_energy_total',
    address: 37119,
    type: 's32',
    scale: 0.01,
    source: `${LIB}: rn.GRID_EXPORTED_ENERGY: I32AbsoluteValueRegister("kWh", 100, 37119)`,
  },
  {
    name: 'grid_import_energy_total',
    address: 37121,
    type: 's32',
    scale: 0.01,
    source: `${LIB}: rn.GRID_ACCUMULATED_ENERGY: I32Register("kWh", 100, 37121)`,
  },
  {
    name: 'rated_capacity',
    device: 'battery',
    address: 37758,
    type: 'u32',
    scale: 0.001,
    source: `${LIB}: rn.STORAGE_RATED_CAPACITY: U32Register("Wh", 1, 37758)`,
  },
  {
    name: 'state_of_charge',
    device: 'battery',
    address: 37760,
    type: 'u16',
    scale: 0.1,
    source: `${LIB}: rn.STORAGE_STATE_OF_CAPACITY: U16Register("%", 10, 37760)`,
  },
  {
    name: 'running_status',
    device: 'battery',
    address: 37762,
    type: 'u16',
    labels: { 2: 'Running' },
    source: `${LIB}: rn.STORAGE_RUNNING_STATUS: U16Register(rv.StorageStatus, 1, 37762); register_values.py StorageStatus.RUNNING = 2`,
  },
  {
    name: 'voltage',
    device: 'battery',
    address: 37763,
    type: 'u16',
    scale: 0.1,
    source: `${LIB}: rn.STORAGE_BUS_VOLTAGE: U16Register("V", 10, 37763)`,
  },
  {
    name: 'current',
    device: 'battery',
    address: 37764,
    type: 's16',
    scale: 0.1,
    source: `${LIB}: rn.STORAGE_BUS_CURRENT: I16Register("A", 10, 37764)`,
  },
  {
    name: 'power',
    device: 'battery',
    address: 37765,
    type: 's32',
    source: `${LIB}: rn.STORAGE_CHARGE_DISCHARGE_POWER: I32Register("W", 1, 37765); + charging (evcc-io/evcc huawei-sun2000-hybrid.yaml reads it with scale -1 for + discharging)`,
  },
  {
    name: 'total_charge_energy',
    device: 'battery',
    address: 37780,
    type: 'u32',
    scale: 0.01,
    source: `${LIB}: rn.STORAGE_TOTAL_CHARGE: U32Register("kWh", 100, 37780)`,
  },
  {
    name: 'total_discharge_energy',
    device: 'battery',
    address: 37782,
    type: 'u32',
    scale: 0.01,
    source: `${LIB}: rn.STORAGE_TOTAL_DISCHARGE: U32Register("kWh", 100, 37782)`,
  },
  {
    name: 'battery_charge_energy_today',
    address: 37784,
    type: 'u32',
    scale: 0.01,
    source: `${LIB}: rn.STORAGE_CURRENT_DAY_CHARGE_CAPACITY: U32Register("kWh", 100, 37784)`,
  },
  {
    name: 'battery_discharge_energy_today',
    address: 37786,
    type: 'u32',
    scale: 0.01,
    source: `${LIB}: rn.STORAGE_CURRENT_DAY_DISCHARGE_CAPACITY: U32Register("kWh", 100, 37786)`,
  },
  {
    name: 'max_charging_power',
    address: 47075,
    type: 'u32',
    source: `${LIB}: rn.STORAGE_MAXIMUM_CHARGING_POWER: U32Register("W", 1, 47075, writeable=True)`,
  },
  {
    name: 'max_discharging_power',
    address: 47077,
    type: 'u32',
    source: `${LIB}: rn.STORAGE_MAXIMUM_DISCHARGING_POWER: U32Register("W", 1, 47077, writeable=True)`,
  },
  {
    name: 'charging_cutoff_soc',
    address: 47081,
    type: 'u16',
    scale: 0.1,
    source: `${LIB}: rn.STORAGE_CHARGING_CUTOFF_CAPACITY: U16Register("%", 10, 47081, writeable=True)`,
  },
  {
    name: 'discharging_cutoff_soc',
    address: 47082,
    type: 'u16',
    scale: 0.1,
    source: `${LIB}: rn.STORAGE_DISCHARGING_CUTOFF_CAPACITY: U16Register("%", 10, 47082, writeable=True)`,
  },
  {
    name: 'forcible_period',
    address: 47083,
    type: 'u16',
    source: `${LIB}: rn.STORAGE_FORCED_CHARGING_AND_DISCHARGING_PERIOD: U16Register("min", 1, 47083, writeable=True)`,
  },
  {
    name: 'working_mode',
    address: 47086,
    type: 'u16',
    labels: { 2: 'Maximise self consumption' },
    source: `${LIB}: rn.STORAGE_WORKING_MODE_SETTINGS: U16Register(rv.StorageWorkingModesC, 1, 47086); register_values.py MAXIMISE_SELF_CONSUMPTION = 2`,
  },
  {
    name: 'charge_from_grid',
    address: 47087,
    type: 'u16',
    labels: { 0: 'Disabled', 1: 'Enabled' },
    source: `${LIB}: rn.STORAGE_CHARGE_FROM_GRID_FUNCTION: U16Register(bool, 1, 47087, writeable=True)`,
  },
];
