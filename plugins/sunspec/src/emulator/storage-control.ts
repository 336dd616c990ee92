/**
 * The emulated device's model 124 storage controls (points by data offset, as
 * sunspec/models json/model_124.json places them): StorCtl_Mod (3) turns on the charge limit
 * (bit 0, InWRte at 11) and the discharge limit (bit 1, OutWRte at 10), both in % of WChaMax
 * (0) with InOutWRte_SF (23); a negative rate reverses the direction, so OutWRte = -50 % with
 * the discharge limit on forces charging at half of WChaMax, as Fronius and SMA document it.
 * ChaGriSet (15) allows charging from the grid. MinRsvPct (5) is the reserve.
 */

/** Data offsets of the writable points and their checks. */
export const WRITABLE_124: Readonly<Record<number, (value: number) => boolean>> = {
  0: (v) => v <= 5000, // WChaMax
  3: (v) => v <= 3, // StorCtl_Mod
  5: (v) => v <= 100, // MinRsvPct
  10: (v) => signed(v) >= -10000 && signed(v) <= 10000, // OutWRte, hundredths of a %
  11: (v) => signed(v) >= -10000 && signed(v) <= 10000, // InWRte
  12: () => true, // InOutWRte_WinTms
  13: () => true, // InOutWRte_RvrtTms
  14: () => true, // InOutWRte_RmpTms
  15: (v) => v <= 1, // ChaGriSet
};
/** InOutWRte_SF: the rates are in hundredths of a percent. */
export const RATE_SF = -2;

const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);

export class StorageControls {
  maxChargeW = 3000;
  minReservePct = 10;
  /** StorCtl_Mod: bit 0 charge limit, bit 1 discharge limit. */
  mode = 0;
  /** OutWRte and InWRte as words (int16, hundredths of a %). */
  outRate = 10000;
  inRate = 10000;
  winTms = 0;
  rvrtTms = 0;
  rmpTms = 0;
  /** ChaGriSet: 0 PV only, 1 grid. */
  gridCharge = 0;

  write(offset: number, value: number): void {
    if (offset === 0) this.maxChargeW = value;
    else if (offset === 3) this.mode = value;
    else if (offset === 5) this.minReservePct = value;
    else if (offset === 10) this.outRate = value;
    else if (offset === 11) this.inRate = value;
    else if (offset === 12) this.winTms = value;
    else if (offset === 13) this.rvrtTms = value;
    else if (offset === 14) this.rmpTms = value;
    else if (offset === 15) this.gridCharge = value;
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
}
