/**
 * The GoodWe ET / EH hybrid inverter driver: identifies the unit from its device information
 * block (35000.., as the goodwe library's `read_device_info` reads it: rated power, serial,
 * model name), polls the register map over Modbus RTU in UDP (the inverter's own Wi-Fi/LAN
 * module on port 8899, unit 0xF7, replies prefixed AA 55) or RS485 (serial or a gateway),
 * publishes the inverter's and battery's readings under the standard vocabulary and writes its
 * settings (checked by reading the register back). With `battery` limits in the config it
 * declares battery control through the eco mode (battery-control.ts): the first poll after the
 * declaration ends a forced command found on the device, and the stop writes Normal before the
 * connection closes.
 */
import { z } from '@heliograph/plugins-sdk';
import {
  identifiedInverterPlugin,
  inverterConfigFields,
  ModbusExceptionError,
  type ModbusClient,
} from '@heliograph/plugins-sdk/connections';
import { goodweBatteryControl, groupVersion } from './battery-control.js';
import { goodweMap } from './register-map.js';

/**
 * plugins.json `config` of a goodwe instance.
 *
 * @example
 * { "connection": { "type": "rtu-over-udp", "host": "192.168.1.60", "replyPrefix": "aa55" }, "battery": { "capacityKwh": 10.2, "maxChargeW": 5000, "maxDischargeW": 5000, "minSoc": 10 } }
 */
const configSchema = z.strictObject({
  ...inverterConfigFields,
});

const IDENTITY = { manufacturer: 'GoodWe' } as const;
/** Used when a unit reports no rated power (35001 reads 0): the ET's smallest, so a group's share is never too small. */
const FALLBACK_RATED_W = 5000;

/** ASCII text from registers, trailing blanks and NULs dropped (goodwe inverter.py `_decode`). */
const text = (words: readonly number[]) =>
  Buffer.from(words.flatMap((w) => [w >> 8, w & 0xff]))
    .toString('latin1')
    .replace(/[\s\0]+$/, '');

/**
 * The device information block (et.py `read_device_info`: 35000, 33 registers): 35001 rated
 * power, 35003..35010 serial, 35011..35015 model name. A unit that refuses it (not an ET) is
 * still read; only its identity stays unknown.
 */
async function deviceInfo(
  modbus: ModbusClient,
  request: { unitId: number; timeoutMs: number; signal: AbortSignal },
): Promise<{ ratedW: number; serial: string; model: string }> {
  const info = await modbus.readHoldingRegisters({ ...request, address: 35000, count: 33 }).catch((err: unknown) => {
    if (err instanceof ModbusExceptionError) return new Array<number>(33).fill(0);
    throw err;
  });
  return { ratedW: info[1]!, serial: text(info.slice(3, 11)), model: text(info.slice(11, 16)) };
}

export default identifiedInverterPlugin({
  id: 'goodwe',
  configSchema,
  identity: IDENTITY,
  // GoodWe's communication address is 0xF7 (247) unless set otherwise on the inverter.
  defaultUnitId: 0xf7,
  /** Reads the device information (et.py `read_device_info`: 35000, 33 registers) and the eco mode's version. */
  identifier: (ctx, _config, { unitId, modbus, timeoutMs }) =>
    async function identify(signal, control) {
      const info = await deviceInfo(modbus, { unitId, timeoutMs, signal });
      let { ratedW } = info;
      const { serial, model } = info;
      if (!(ratedW > 0)) {
        ctx.log.warn(
          `unit ${unitId} reports no rated power (35001); eco group power is taken as a share of ${FALLBACK_RATED_W} W`,
        );
        ratedW = FALLBACK_RATED_W;
      }
      let eco = null;
      if (control) {
        const version = await groupVersion(modbus, unitId, timeoutMs, signal);
        eco = goodweBatteryControl({ ...control, version, ratedW });
      }
      return { map: goodweMap, control: eco, identity: { model: model || 'ET/EH', ...(serial ? { serial } : {}) } };
    },
});
