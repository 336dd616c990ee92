/*
 * One charger's OCPP 1.6J link, central-system side: answers what the charge point sends
 * (BootNotification, Heartbeat, StatusNotification, MeterValues, Authorize, Start/Stop
 * Transaction; OCPP 1.6 edition 2 chapter 4) and sends Heliograph's commands (chapter 5).
 * It keeps what the charger said; the device (charger-device.ts) decides what to do with it.
 */
import { DeviceRefusedError, NoAnswerError } from '@heliograph/plugins-sdk';
import type { ChargerConfig } from './config.js';
import {
  CAR_PLUGGED,
  isoTime,
  readMeterValues,
  type ChargingProfile,
  type MeterReading,
  type MeterValue,
} from './ocpp16.js';

/** What ocpp-rpc's RPCServerClient offers that the link uses. */
export interface RpcPeer {
  readonly identity: string;
  handle(method: string, handler: (call: { params: Record<string, unknown> }) => unknown): void;
  call(method: string, params: unknown, options?: { callTimeoutMs?: number }): Promise<unknown>;
  close(options?: { code?: number; reason?: string; force?: boolean }): Promise<unknown>;
  on(event: 'close', listener: (event: { code: number; reason: string }) => void): unknown;
}

/** The stack level of Heliograph's profiles: fixed, so a new one replaces the last (§3.13.2). */
export const STACK_LEVEL = 5;
/** Profile ids of Heliograph's own profiles, fixed for the same reason. */
export const PROFILE_IDS = { TxDefaultProfile: 4201, TxProfile: 4202 } as const;
/** A command the charger does not answer within this fails as unanswered (the write's own bound is 10 s). */
const CALL_TIMEOUT_MS = 8_000;
/** How long after StartTransaction the charger is taken to know the transaction's id. */
const TX_KNOWN_MS = 2_000;
/** How long after a connect the link waits for a BootNotification before it takes the charger as booted. */
const BOOT_WAIT_MS = 5_000;

export interface LinkEvents {
  /** Anything happened (a message, a connect, a close): the device publishes and decides again. */
  changed(): void;
  /** Meter values came. */
  metered(): void;
  /** The charger (re)connected and booted: start clean. */
  booted(): void;
}

/** A transaction (§4.8 StartTransaction) running on the charger. */
interface Transaction {
  id: number;
  idTag: string;
  meterStartWh: number;
  /** When the central system answered its StartTransaction (server clock). */
  startedAt: number;
}

/** What the link knows of the charger. */
export interface LinkState {
  online: boolean;
  booted: boolean;
  /** §7.7 status of connector 1 (or 0 before any), or null before the first StatusNotification. */
  status: string | null;
  errorCode: string | null;
  /** When the charger last sent anything (Unix ms, the server's clock). */
  lastSeen: number | null;
  /** Why it is offline, in words, once it was online. */
  offlineReason: string | null;
  meter: MeterReading;
  transactionId: number | null;
  sessionEnergyWh: number | null;
  vendor: string | null;
  model: string | null;
  serial: string | null;
  firmware: string | null;
}

let nextTransactionId = Math.floor(Date.now() / 1000) % 1_000_000_000;

export class ChargerLink {
  private peer: RpcPeer | null = null;
  private transaction: Transaction | null = null;
  readonly state: LinkState = {
    online: false,
    booted: false,
    status: null,
    errorCode: null,
    lastSeen: null,
    offlineReason: null,
    meter: {},
    transactionId: null,
    sessionEnergyWh: null,
    vendor: null,
    model: null,
    serial: null,
    firmware: null,
  };

  constructor(
    private readonly config: ChargerConfig,
    private readonly options: { now: () => number; heartbeatIntervalS: number; events: LinkEvents },
  ) {}

  get carPlugged(): boolean {
    return this.state.online && this.state.status !== null && CAR_PLUGGED.has(this.state.status);
  }

  /** Takes a newly accepted connection; an older one of the same charger is closed (it reconnected). */
  attach(peer: RpcPeer): void {
    const old = this.peer;
    this.peer = peer;
    if (old) void old.close({ code: 1000, reason: 'replaced by a new connection' }).catch(() => {});
    Object.assign(this.state, { online: true, booted: false, offlineReason: null, lastSeen: this.options.now() });
    peer.on('close', ({ code, reason }) => {
      if (this.peer !== peer) return;
      this.peer = null;
      this.state.online = false;
      this.state.booted = false;
      this.state.offlineReason = `the charger's connection closed (${code}${reason ? `: ${reason}` : ''})`;
      this.options.events.changed();
    });
    this.handleCalls(peer);
    // A charger that reconnects without booting again (a network drop) is started clean too.
    setTimeout(() => {
      if (this.peer !== peer || this.state.booted) return;
      this.state.booted = true;
      this.options.events.booted();
    }, BOOT_WAIT_MS).unref();
    this.options.events.changed();
  }

  /** Closes the connection (the plugin stops). */
  async detach(): Promise<void> {
    const peer = this.peer;
    this.peer = null;
    if (peer) await peer.close({ code: 1001, reason: 'Heliograph is stopping' }).catch(() => {});
  }

  /** Marks the link silent: it stays open, but nothing came for too long. */
  silent(reason: string): void {
    this.state.offlineReason = reason;
  }

  private seen(): void {
    this.state.lastSeen = this.options.now();
    if (this.state.online) this.state.offlineReason = null;
  }

  private handleCalls(peer: RpcPeer): void {
    const { events } = this.options;
    const on = (method: string, answer: (params: Record<string, unknown>) => unknown) =>
      peer.handle(method, ({ params }) => {
        this.seen();
        const reply = answer(params);
        if (method === 'MeterValues') events.metered();
        else events.changed();
        return reply;
      });
    // §4.2: the interval also sets how often it sends Heartbeat.
    on('BootNotification', (p) => {
      Object.assign(this.state, {
        booted: true,
        vendor: str(p.chargePointVendor),
        model: str(p.chargePointModel),
        serial: str(p.chargePointSerialNumber) ?? str(p.chargeBoxSerialNumber),
        firmware: str(p.firmwareVersion),
      });
      // Before `changed`: nothing is sent before Heliograph's old profiles are cleared.
      events.booted();
      return {
        status: 'Accepted',
        currentTime: isoTime(this.options.now()),
        interval: this.options.heartbeatIntervalS,
      };
    });
    on('Heartbeat', () => ({ currentTime: isoTime(this.options.now()) }));
    on('StatusNotification', (p) => {
      // §4.9: connector 0 is the charge point as a whole; a single-connector charger reports 1.
      if (p.connectorId !== 0 || this.state.status === null) {
        this.state.status = String(p.status);
        this.state.errorCode = String(p.errorCode);
      }
      return {};
    });
    on('MeterValues', (p) => {
      const reading = readMeterValues(p.meterValue as MeterValue[]);
      this.state.meter = { ...this.state.meter, ...reading };
      this.updateSession();
      return {};
    });
    on('Authorize', (p) => ({ idTagInfo: { status: this.authorize(String(p.idTag)) } }));
    on('StartTransaction', (p) => {
      const status = this.authorize(String(p.idTag));
      const id = (nextTransactionId = (nextTransactionId + 1) % 2_000_000_000);
      // §4.8: the transaction id is given even when the tag is refused; the charger stops it.
      if (status === 'Accepted') {
        this.transaction = {
          id,
          idTag: String(p.idTag),
          meterStartWh: Number(p.meterStart),
          startedAt: this.options.now(),
        };
        this.state.transactionId = id;
        this.state.meter.energyWh = Number(p.meterStart);
        this.updateSession();
      }
      return { idTagInfo: { status }, transactionId: id };
    });
    on('StopTransaction', (p) => {
      if (this.transaction?.id === p.transactionId) {
        this.state.meter.energyWh = Number(p.meterStop);
        this.updateSession();
        this.transaction = null;
        this.state.transactionId = null;
      }
      const idTag = str(p.idTag);
      return idTag === null ? {} : { idTagInfo: { status: this.authorize(idTag) } };
    });
    on('DataTransfer', () => ({ status: 'UnknownVendorId' }));
    on('DiagnosticsStatusNotification', () => ({}));
    on('FirmwareStatusNotification', () => ({}));
  }

  /** §3.5 Local authorization: free charging, or the configured list (and Heliograph's own remote tag). */
  private authorize(idTag: string): 'Accepted' | 'Invalid' {
    if (this.config.authorization === 'free') return 'Accepted';
    return this.config.idTags.includes(idTag) || idTag === this.config.remoteIdTag ? 'Accepted' : 'Invalid';
  }

  private updateSession(): void {
    const start = this.transaction?.meterStartWh;
    const now = this.state.meter.energyWh;
    if (start !== undefined && now !== undefined) this.state.sessionEnergyWh = Math.max(0, now - start);
  }

  // Commands (OCPP 1.6 chapter 5). Each resolves once the charger accepted, or throws why not.

  /**
   * §5.16 SetChargingProfile: `currentA` per phase (0 pauses) on `phases`, for `leaseMs` from
   * now: validTo and the schedule's duration both end it, so the charger falls back to its own
   * default when nobody renews it. A TxProfile while a transaction runs (§3.13.1), else a
   * TxDefaultProfile for all connectors.
   */
  async setLimit(args: { currentA: number; phases: 1 | 3; leaseMs: number }): Promise<{ until: number }> {
    const now = this.options.now();
    const until = now + args.leaseMs;
    // A TxProfile needs the charger to know the transaction (§5.16: else Rejected); right after
    // StartTransaction its answer may still be on the way, so a TxDefaultProfile goes first.
    const tx = this.transaction && now - this.transaction.startedAt >= TX_KNOWN_MS ? this.transaction : null;
    const purpose = tx ? 'TxProfile' : 'TxDefaultProfile';
    const profile: ChargingProfile = {
      chargingProfileId: PROFILE_IDS[purpose],
      ...(tx ? { transactionId: tx.id } : {}),
      stackLevel: STACK_LEVEL,
      chargingProfilePurpose: purpose,
      chargingProfileKind: 'Absolute',
      validFrom: isoTime(now),
      validTo: isoTime(until),
      chargingSchedule: {
        duration: Math.round(args.leaseMs / 1000),
        startSchedule: isoTime(now),
        chargingRateUnit: 'A',
        chargingSchedulePeriod: [{ startPeriod: 0, limit: args.currentA, numberPhases: args.phases }],
      },
    };
    await this.command('SetChargingProfile', { connectorId: tx ? 1 : 0, csChargingProfiles: profile }, ['Accepted']);
    return { until };
  }

  /** §5.5 ClearChargingProfile: Heliograph's own profiles (its stack level, both purposes). */
  async clearProfiles(): Promise<void> {
    for (const purpose of ['TxDefaultProfile', 'TxProfile'] as const)
      // Unknown: there was none to clear, which is as clean.
      await this.command('ClearChargingProfile', { chargingProfilePurpose: purpose, stackLevel: STACK_LEVEL }, [
        'Accepted',
        'Unknown',
      ]);
  }

  /** §5.11 RemoteStartTransaction on connector 1 with Heliograph's tag. */
  async remoteStart(): Promise<void> {
    await this.command('RemoteStartTransaction', { connectorId: 1, idTag: this.config.remoteIdTag }, ['Accepted']);
  }

  /** §5.12 RemoteStopTransaction of the running transaction. */
  async remoteStop(): Promise<void> {
    const tx = this.transaction;
    if (!tx) throw new DeviceRefusedError({ answer: 'no transaction', message: 'no transaction is running to stop' });
    await this.command('RemoteStopTransaction', { transactionId: tx.id }, ['Accepted']);
  }

  /** §5.2 ChangeAvailability of the whole charge point (connector 0). */
  async changeAvailability(type: 'Operative' | 'Inoperative'): Promise<void> {
    await this.command('ChangeAvailability', { connectorId: 0, type }, ['Accepted', 'Scheduled']);
  }

  /** §5.17 TriggerMessage: asks the charger to send one of its messages now. */
  async trigger(requestedMessage: string): Promise<void> {
    await this.command('TriggerMessage', { requestedMessage }, ['Accepted']);
  }

  private async command(method: string, params: unknown, accepted: readonly string[]): Promise<void> {
    const peer = this.peer;
    if (!peer)
      throw new NoAnswerError({ message: `the charger is not connected (${this.state.offlineReason ?? 'never was'})` });
    let answer: unknown;
    try {
      answer = await peer.call(method, params, { callTimeoutMs: CALL_TIMEOUT_MS });
    } catch (err) {
      const e = err as Error & { rpcErrorCode?: string };
      if (e.name === 'TimeoutError')
        throw new NoAnswerError({ message: `no answer to ${method}`, timeoutMs: CALL_TIMEOUT_MS });
      throw new DeviceRefusedError({ answer: `${method}: ${e.rpcErrorCode ?? e.name}: ${e.message}` });
    }
    this.seen();
    const status = String((answer as { status?: unknown }).status);
    if (!accepted.includes(status)) throw new DeviceRefusedError({ answer: `${method} ${status}` });
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
