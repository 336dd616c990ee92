/**
 * Server-side helpers for device emulators (`@heliograph/plugins-sdk/emulator`): a TCP
 * listener with test controls (silence, corrupt replies), Modbus request handling with
 * exception replies, the Modbus TCP / RTU / Solarman V5 framings, and a simple model of a
 * household's day. Each driver package's `src/emulator/main.ts` builds its device on these
 * and exports an {@link EmulatorModule}, which `heliograph emulate <driver>` starts.
 *
 * @example
 * import { startModbusEmulator, type ModbusDevice } from '@heliograph/plugins-sdk/emulator';
 *
 * const emulator = await startModbusEmulator({ transport: 'tcp', units: new Map([[1, device]]) });
 * emulator.silence(true);
 *
 * @packageDocumentation
 */
export {
  pickTransport,
  startEmulatorServer,
  type ConnectingEmulatorModule,
  type EmulatorControls,
  type EmulatorModule,
  type EmulatorOptions,
  type FrameProtocol,
  type RunningEmulator,
} from './server.js';
export {
  answerModbusPdu,
  ModbusException,
  ModbusExceptionCode,
  textWords,
  toWord,
  wordsOf32,
  type ModbusDevice,
} from './modbus.js';
export {
  hasValidModbusCrc,
  MODBUS_TRANSPORTS,
  modbusRtuProtocol,
  modbusTcpProtocol,
  solarmanProtocol,
  startModbusEmulator,
  startUdpModbusEmulator,
  withModbusCrc,
  type ModbusTransport,
  type ModbusUnits,
} from './modbus-transports.js';
export { startUdpEmulatorServer } from './udp-server.js';
export { flipLastByte, startFrameEmulator } from './frame-emulator.js';
export { connectRaw, modbusTcpLength, readHoldingOverTcp, type RawClient } from './raw-client.js';
export { connectRawTo, sendUnanswered, type RawSession } from './test-client.js';
export { clamp, DayIntegrator, householdLoad, sunFraction } from './day.js';
export { DeviceClockSteps } from './device-clock.js';
export { EmulatedSite, imageWords, startOneUnitEmulator, type ReadableRanges } from './one-unit.js';
