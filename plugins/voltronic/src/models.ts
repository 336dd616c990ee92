/**
 * What a PI30 charger priority number means, which depends on the model. The output source
 * priority (POP00 utility first, POP01 solar first, POP02 SBU) is the same on every model; the
 * charger priority (PCPnn) is not (jblance/mpp-solar, mppsolar/protocols/pi30.py `PCP`:
 * "PCP02 (HS only: set solar and utility)"; the PI30 protocol documents in its docs/protocols):
 * - HS and KS: 00 utility first, 01 solar first, 02 solar and utility, 03 only solar;
 * - MS and MKS: 00, 01 and 03 as on the HS, no 02;
 * - PIP-GK/MK and Axpert MAX: 01, 02 and 03 as on the HS, no 00;
 * - LV6548 (QGMN 045; mppsolar/protocols/pi30m045.py): 00 solar first, 01 solar and utility,
 *   02 only solar.
 * No one number lets the utility charge on every model, so grid charging tries solar and
 * utility first (every document but the MS / MKS one lists 02, though pi30.py's help says "HS
 * only") and, where the device refuses it (`(NAK`, an MS or MKS), utility first.
 */
import type { SettingOption } from '@heliograph/plugins-sdk';

export interface ChargerFamily {
  /** Charger priority: only PV charges the battery. */
  onlySolar: number;
  /** Charger priorities that let the utility charge the battery, the preferred first. */
  utilityCharging: readonly number[];
  /** The charger priority setting's options, as the device numbers them. */
  options: ReadonlyArray<SettingOption<number>>;
  /** The command setting the max utility charging current of unit 0 to `amps`. */
  utilityCurrentCommand(amps: number): string;
  /** The utility currents this command can carry. */
  fits(amps: number): boolean;
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** HS, KS, MS, MKS, GK, MK, MAX: `MUCHGC<mnn>`, m the parallel unit (0), nn the current. */
export const PI30_CHARGER: ChargerFamily = {
  onlySolar: 3,
  utilityCharging: [2, 0],
  options: [
    { value: 0, label: 'Utility first' },
    { value: 1, label: 'Solar first' },
    { value: 2, label: 'Solar and utility' },
    { value: 3, label: 'Only solar' },
  ],
  utilityCurrentCommand: (amps) => `MUCHGC0${pad(amps, 2)}`,
  fits: (amps) => amps < 100,
};

/**
 * PIP-GK / MK (QGMN 023 PIP-5048MK, 024 PIP-3024MK: PI30_PIP-GK_MK-Protocol 2.20): charger
 * priorities 01..03 only (3.12), so solar and utility is the one that lets the utility charge.
 */
export const PIP_MK_CHARGER: ChargerFamily = {
  ...PI30_CHARGER,
  utilityCharging: [2],
  options: PI30_CHARGER.options.filter((o) => o.value !== 0),
};

/** LV6548 and similar (QGMN 045): `MUCHGC<uaaa>` (pi30m045.py). */
export const LV6548_CHARGER: ChargerFamily = {
  onlySolar: 2,
  utilityCharging: [1],
  options: [
    { value: 0, label: 'Solar first' },
    { value: 1, label: 'Solar and utility' },
    { value: 2, label: 'Only solar' },
  ],
  utilityCurrentCommand: (amps) => `MUCHGC0${pad(amps, 3)}`,
  fits: (amps) => amps < 1000,
};

/**
 * The charger family of the model whose QGMN answer is `gmn` (the text after `(`, or
 * undefined when the device does not know QGMN).
 *
 * @example
 * chargerFamily('045') === LV6548_CHARGER;
 */
export function chargerFamily(gmn: string | undefined): ChargerFamily {
  const code = gmn?.trim();
  if (code === '045') return LV6548_CHARGER;
  return code === '023' || code === '024' ? PIP_MK_CHARGER : PI30_CHARGER;
}

/**
 * The commands that set the max charging current of unit 0 to `amps`, to try in this order
 * until one is taken (`(ACK`). Below 100 A `MCHGC0nn`: `MCHGC<mnn>` (m the parallel unit) in
 * the HS / MS / MSX protocol (20140822, 3.15), `MCHGC<nnn>` in the PI30 protocol of 20150924
 * (3.3), the same text for a single unit. From 100 A `MNCHGC0nnn` (`MNCHGC<mnnn>`, "more than
 * 100A": 20140822 3.19, 20150924 3.4, the MAX protocol 3.5; mpp-solar pi30.py `MNCHGC`,
 * "MNCHGC1120 (set unit 1 ... to 120A)"): `MCHGC110` would be unit 1 at 10 A on an HS. The MAX
 * protocol (and the LV6548, pi30m045.py building on pi30max.py) has no `MCHGC`, so a refused
 * `MCHGC` is tried again as `MNCHGC`. The PIP-GK / MK protocol's `MNCHGC<nnn>` (no unit
 * digit) is not sent: read with a unit digit it would mean another current.
 *
 * @example
 * maxChargeCurrentCommands(60); // ['MCHGC060', 'MNCHGC0060']
 * maxChargeCurrentCommands(120); // ['MNCHGC0120']
 */
export function maxChargeCurrentCommands(amps: number): string[] {
  const large = `MNCHGC0${pad(amps, 3)}`;
  return amps < 100 ? [`MCHGC0${pad(amps, 2)}`, large] : [large];
}
