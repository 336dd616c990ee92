/**
 * Device connections for drivers: shared TCP and serial links with a one-request-at-a-time
 * queue, Modbus (TCP, RTU, RTU over TCP, Solarman V5) and declarative register maps.
 *
 * @example
 * import { connectionSchema, openModbus, defineRegisterMap, readRegisterMap } from '@heliograph/plugins-sdk/connections';
 *
 * @packageDocumentation
 */
export {
  connectionSchema,
  inverterConfigFields,
  pollingFields,
  streamConnectionSchema,
  streamDeviceFields,
  type ConnectionInput,
  type ConnectionSpec,
  type StreamConnectionSpec,
} from './spec.js';
export type { LinkEvents, LinkOptions, LinkRequestOptions, LinkStats, ReconnectOptions } from './link.js';
export { openStreamLink, type StreamLink } from './registry.js';
export { byteSum, pollStreamDevice, requestCommandReply } from './stream-device.js';
export {
  openModbus,
  ModbusExceptionError,
  type ModbusClient,
  type ModbusOptions,
  type ModbusReadRequest,
  type ModbusWriteRequest,
} from './modbus.js';
export {
  defineRegisterMap,
  type DerivedEntry,
  type RegisterEntry,
  type RegisterMap,
  type RegisterMapInput,
  type RegisterOption,
  type RegisterReference,
  type RegisterType,
} from './register-map.js';
export type { ReadBlock } from './read-plan.js';
export {
  readRegisterMap,
  registerMapDeclarations,
  registerMapImage,
  type RegisterMapValues,
} from './register-map-io.js';
export { inverterOnUnit, unitIdDeviceConfigSchema, watchUnit, type InverterOnUnit } from './modbus-devices.js';
export {
  declareControlled,
  openInverterUnit,
  pollRegisterMapInverter,
  publishControlled,
  stopControlled,
  type InverterControl,
  type InverterUnit,
  type InverterUnitConfig,
  type RegisterMapInverterOptions,
} from './register-map-driver.js';
export {
  identifiedInverterPlugin,
  type IdentifiedInverterConfig,
  type IdentifiedInverterPluginOptions,
} from './identified-inverter-plugin.js';
export {
  pollIdentifiedInverter,
  type IdentifiedInverter,
  type IdentifiedInverterOptions,
} from './identified-inverter.js';
export { chooseModel, type ModelChoice } from './model-maps.js';
export { changedRuns, type RegisterRun } from './register-writes.js';
export {
  contextOf,
  controlContext,
  unitControl,
  type ControlContext,
  type UnitControlOptions,
} from './unit-control.js';
