/**
 * The emulated inverter's remote control (RC) registers, as the sources place them (see
 * ../remote-control.ts): 43135 forces the battery (0 none, 1 charge, 2 discharge), 43136 and
 * 43129 are the charge and discharge powers (W / 10), 43282 the RC timeout in minutes
 * (default 5, Pho3niX90/solis_modbus "RC Timeout"). The inverter counts the timeout down by
 * its own clock: a write of a force to 43135 (re)starts the countdown from the timeout then
 * held, a write of the timeout while a force runs restarts it from the new one; when it runs
 * out, 43135 goes back to 0 and the battery to the storage mode's own behaviour. The
 * registers live in RAM: nothing else keeps them.
 */
import { ModbusException, ModbusExceptionCode } from '@heliograph/plugins-sdk/emulator';

export const RC_REGISTERS = { dischargePower: 43129, mode: 43135, chargePower: 43136, timeout: 43282 } as const;
/** The timeout the inverter starts with, minutes. */
export const DEFAULT_TIMEOUT_MIN = 5;

export class RemoteControl {
  /** 43135: 0 none, 1 force charge, 2 force discharge. */
  mode = 0;
  /** 43136 and 43129, W / 10. */
  chargePower = 0;
  dischargePower = 0;
  /** 43282, minutes. */
  timeout = DEFAULT_TIMEOUT_MIN;
  /** When the force is dropped (ms, the inverter's clock); null while none runs. */
  endsAt: number | null = null;

  /** Whether `address` is one of the RC registers. */
  static holds(address: number): boolean {
    return Object.values(RC_REGISTERS).includes(address as never);
  }

  /** One register written at `now` (ms, the inverter's clock). */
  write(address: number, value: number, now: number): void {
    if (address === RC_REGISTERS.mode) {
      if (value > 2) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
      this.mode = value;
      this.endsAt = value === 0 ? null : now + this.timeout * 60_000;
    } else if (address === RC_REGISTERS.timeout) {
      if (value < 1 || value > 30) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
      this.timeout = value;
      if (this.mode !== 0) this.endsAt = now + value * 60_000;
    } else if (address === RC_REGISTERS.chargePower) this.chargePower = value;
    else if (address === RC_REGISTERS.dischargePower) this.dischargePower = value;
    else throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
  }

  /** The countdown ran out: the force is dropped. */
  drop(): void {
    this.mode = 0;
    this.endsAt = null;
  }

  /** The registers' words by address. */
  words(): Array<[number, number]> {
    return [
      [RC_REGISTERS.dischargePower, this.dischargePower],
      [RC_REGISTERS.mode, this.mode],
      [RC_REGISTERS.chargePower, this.chargePower],
      [RC_REGISTERS.timeout, this.timeout],
    ];
  }
}
