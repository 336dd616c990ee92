/**
 * The emulated device's model 124 storage controls (points by data offset, as
 * sunspec/models json/model_124.json and smdx/smdx_00124.xml place them): StorCtl_Mod (3,
 * bitfield16: bit 0 CHARGE turns on the charge limit InWRte at 11, bit 1 DiSCHARGE the
 * discharge limit OutWRte at 10), both rates in % of WChaMax (0) with InOutWRte_SF (23); a
 * negative rate reverses the direction, so OutWRte = -50 % with the discharge limit on forces
 * charging at half of WChaMax, as Fronius and SMA document it. ChaGriSet (15) allows charging
 * from the grid. MinRsvPct (5) is the reserve. WChaGra and WDisChaGra (1, 2) are kept but the
 * emulated battery changes its power at once.
 *
 * InOutWRte_RvrtTms (13), "Timeout period for charge/discharge rate", is counted down by the
 * device's own clock: a request that writes StorCtl_Mod, a rate or the timeout (re)starts the
 * countdown from the timeout then in force (0: none runs), and when it runs out StorCtl_Mod
 * and both rates go back to their defaults (0, 100 %: the battery's own self-consumption). The
 * register keeps the written timeout, as a setting does.
 */

/** Data offsets of the writable points and their checks. */
export const WRITABLE_124: Readonly<Record<number, (value: number) => boolean>> = {
  0: (v) => v <= 5000, // WChaMax
  1: () => true, // WChaGra, % WChaMax/s
  2: () => true, // WDisChaGra
  3: (v) => v <= 3, // StorCtl_Mod
  5: (v) => v <= 100, // MinRsvPct
  10: (v) => signed(v) >= -10000 && signed(v) <= 10000, // OutWRte, hundredths of a %
  11: (v) => signed(v) >= -10000 && signed(v) <= 10000, // InWRte
  12: () => true, // InOutWRte_WinTms
  13: () => true, // InOutWRte_RvrtTms, s
  14: () => true, // InOutWRte_RmpTms
  15: (v) => v <= 1, // ChaGriSet
};
/** InOutWRte_SF: the rates are in hundredths of a percent. */
export const RATE_SF = -2;
/** A rate of 100 %, the default of OutWRte and InWRte, as the word. */
export const FULL_RATE = 100 / 10 ** RATE_SF;
/** The points whose write (re)starts the revert countdown: StorCtl_Mod, OutWRte, InWRte, InOutWRte_RvrtTms. */
const COMMAND_POINTS = new Set([3, 10, 11, 13]);

const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);

export class StorageControls {
  maxChargeW = 3000;
  /** WChaGra and WDisChaGra, % of WChaMax per second. */
  chargeRamp = 100;
  dischargeRamp = 100;
  minReservePct = 10;
  /** StorCtl_Mod: bit 0 charge limit, bit 1 discharge limit. */
  mode = 0;
  /** OutWRte and InWRte as words (int16, hundredths of a %). */
  outRate = FULL_RATE;
  inRate = FULL_RATE;
  winTms = 0;
  /** InOutWRte_RvrtTms as written, s; 0: the rates hold until the next write. */
  rvrtTms = 0;
  rmpTms = 0;
  /** ChaGriSet: 0 PV only, 1 grid. */
  gridCharge = 0;
  /** When the revert countdown runs out (ms, the device's clock); null while none runs. */
  revertAt: number | null = null;

  /**
   * One write request's points (data offset and word) at `now` (ms, the device's clock); a
   * request that touches the command restarts the countdown from the timeout it leaves.
   */
  write(points: ReadonlyArray<{ offset: number; value: number }>, now: number): void {
    for (const { offset, value } of points) this.set(offset, value);
    if (points.some((p) => COMMAND_POINTS.has(p.offset)))
      this.revertAt = this.rvrtTms > 0 ? now + this.rvrtTms * 1000 : null;
  }

  /** Back to the defaults, as the end of the revert timeout does: no limits, both rates 100 %. */
  revert(): void {
    this.mode = 0;
    this.outRate = FULL_RATE;
    this.inRate = FULL_RATE;
    this.revertAt = null;
  }

  /** Seconds until the countdown runs out at `now`; null while none runs. */
  revertInS(now: number): number | null {
    return this.revertAt === null ? null : Math.max(0, Math.ceil((this.revertAt - now) / 1000));
  }

  /**
   * The battery's power (W, + discharging as SunSpec counts) for a PV surplus (W, + spare),
   * within what the battery can take (`canCharge`) and give (`canDischarge`) now.
   */
  batteryW(surplus: number, canCharge: number, canDischarge: number): number {
    const rate = (word: number) => (signed(word) * 10 ** RATE_SF * this.maxChargeW) / 100;
    const chargeLimit = this.mode & 1 ? rate(this.inRate) : canCharge;
    const dischargeLimit = this.mode & 2 ? rate(this.outRate) : canDischarge;
    if (dischargeLimit < 0) {
      // Forced charging: from the grid only where ChaGriSet allows it, else from the PV surplus.
      const source = this.gridCharge === 1 ? Infinity : Math.max(0, surplus);
      return -Math.min(-dischargeLimit, canCharge, source) || 0;
    }
    if (chargeLimit < 0) return Math.min(-chargeLimit, canDischarge);
    return (
      (surplus >= 0
        ? -Math.min(surplus, canCharge, Math.max(0, chargeLimit))
        : Math.min(-surplus, canDischarge, Math.max(0, dischargeLimit))) || 0
    );
  }

  private set(offset: number, value: number): void {
    if (offset === 0) this.maxChargeW = value;
    else if (offset === 1) this.chargeRamp = value;
    else if (offset === 2) this.dischargeRamp = value;
    else if (offset === 3) this.mode = value;
    else if (offset === 5) this.minReservePct = value;
    else if (offset === 10) this.outRate = value;
    else if (offset === 11) this.inRate = value;
    else if (offset === 12) this.winTms = value;
    else if (offset === 13) this.rvrtTms = value;
    else if (offset === 14) this.rmpTms = value;
    else if (offset === 15) this.gridCharge = value;
  }
}
