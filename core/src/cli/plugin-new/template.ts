/* What every kind's files (files.ts, driver.ts, services.ts) are filled with. */

/** What every template is filled with. */
export interface Template {
  id: string;
  /** The manifest's kind (a driver is an `inverter` plugin). */
  kind: 'inverter' | 'prices' | 'forecast' | 'integration';
  /** Shown in the settings page: the id in words (`acme-meter` → `Acme meter`). */
  name: string;
  /** The SDK version range the package depends on. */
  sdkRange: string;
  /** The TypeScript range the SDK's types are built for. */
  typescriptRange: string;
}
