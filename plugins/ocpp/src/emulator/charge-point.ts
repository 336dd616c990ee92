/*
 * An emulated OCPP 1.6J charge point with one connector and a car, as a real wallbox behaves
 * toward its central system (OCPP 1.6 edition 2): it boots (§4.2), sends heartbeats at the
 * interval the central system gives (§4.6), reports its connector's status (§4.9) and meter
 * values at its own interval (§4.7), starts a transaction when a car plugs in (§4.8, after
 * Authorize §4.1 when configured), and obeys charging profiles (§3.13, §5.16) until they end,
 * then charges at its own default again. The car's battery fills at the current offered.
 */
import { RPCClient, createRPCError } from '../rpc.js';
import { isoTime, type ChargingProfile, type SampledValue } from '../ocpp16.js';
import { ProfileStore, type Limit } from './profiles.js';

const VOLTAGE = 230;
/** IEC 61851: a car draws nothing below 6 A. */
const MIN_CURRENT_A = 6;

export interface ChargePointOptions {
  /** The central system's URL including the charge point id: `ws://127.0.0.1:8080/ocpp/CP1`. */
  url: string;
  /** HTTP Basic password (security profile 1); none: no Authorization header. */
  password?: string;
  /** What it charges at when no profile applies (A per phase). */
  defaultCurrentA?: number;
  /** Phases wired (and used when a profile does not say). */
  phases?: 1 | 3;
  /** Seconds between MeterValues while a transaction runs (MeterValueSampleInterval). */
  meterIntervalS?: number;
  /** Authorize the tag before StartTransaction (the charger's AuthorizeRemoteTxRequests / local setting). */
  authorizeFirst?: boolean;
  /** The car's battery and its state of charge at plug-in. */
  car?: { capacityKWh: number; soc: number; maxCurrentA?: number };
  /** The charge point's clock, ms; default the system clock plus `clockOffsetMs`. */
  now?: () => number;
}

export type ConnectorStatus =
  'Available' | 'Preparing' | 'Charging' | 'SuspendedEV' | 'SuspendedEVSE' | 'Finishing' | 'Unavailable';

export class EmulatedChargePoint {
  readonly client: RPCClient;
  readonly profiles = new ProfileStore();
  /** Added to the system clock: tests move the charge point's time (a lease running out). */
  clockOffsetMs = 0;
  status: ConnectorStatus = 'Available';
  plugged = false;
  inoperative = false;
  transactionId: number | null = null;
  /** The last authorization answer (Authorize or StartTransaction), for tests. */
  lastAuthorization: string | null = null;
  energyWh = 0;
  powerW = 0;
  carSoc: number;
  heartbeatIntervalS = 0;
  bootStatus: string | null = null;
  /** Refuse every charging profile (a charger whose smart charging is off): tests of the fallback. */
  refuseProfiles = false;
  /** When the central system last sent a command (system clock, ms): tests wait for it to go quiet. */
  lastCallAt = 0;
  /** Silenced: no heartbeats nor meter values (the socket stays open), as a charger whose firmware hangs. */
  silent = false;
  private readonly options: Required<Omit<ChargePointOptions, 'password' | 'now' | 'car'>> & {
    car: { capacityKWh: number; soc: number; maxCurrentA: number };
  };
  private lastTick: number | null = null;
  private timers: NodeJS.Timeout[] = [];
  private heartbeat: NodeJS.Timeout | null = null;
  private readonly clock: () => number;
  /** The system clock plus the offset, set from the central system's time at boot. */
  private readonly ownClock: boolean;

  constructor(options: ChargePointOptions) {
    const url = new URL(options.url);
    const parts = url.pathname.split('/');
    const identity = decodeURIComponent(parts.pop() ?? '');
    url.pathname = parts.join('/');
    this.options = {
      url: options.url,
      defaultCurrentA: options.defaultCurrentA ?? 16,
      phases: options.phases ?? 3,
      meterIntervalS: options.meterIntervalS ?? 10,
      authorizeFirst: options.authorizeFirst ?? false,
      car: { maxCurrentA: 32, ...(options.car ?? { capacityKWh: 60, soc: 30 }) },
    };
    this.carSoc = this.options.car.soc;
    this.ownClock = options.now === undefined;
    this.clock = options.now ?? (() => Date.now() + this.clockOffsetMs);
    this.client = new RPCClient({
      endpoint: url.toString().replace(/\/$/, ''),
      identity,
      protocols: ['ocpp1.6'],
      strictMode: true,
      ...(options.password === undefined ? {} : { password: options.password }),
      reconnect: true,
      backoff: { initialDelay: 200, maxDelay: 5_000, factor: 2, randomisationFactor: 0 },
    } as ConstructorParameters<typeof RPCClient>[0]);
    this.handleCalls();
    this.client.on('open', () => void this.boot().catch(() => {}));
  }

  /** The charge point's time, ms. */
  now(): number {
    return this.clock();
  }

  /** Connects and boots; rejects when the central system refuses the connection (a 401). */
  async start(): Promise<void> {
    await this.client.connect();
    this.timers.push(setInterval(() => this.tick(), 1_000));
    this.timers.push(
      setInterval(() => void this.sendMeterValues().catch(() => {}), this.options.meterIntervalS * 1000),
    );
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.client.close({ force: true });
  }

  /** The current offered now (per phase), and what it comes from. */
  offered(): Limit {
    const limit = this.profiles.limitAt(this.clock(), this.transactionId, {
      currentA: this.options.defaultCurrentA,
      phases: this.options.phases,
    });
    return { ...limit, currentA: Math.min(limit.currentA, this.options.defaultCurrentA, 80) };
  }

  /** §4.2 BootNotification, then heartbeats at the interval given, and the connector's status. */
  private async boot(): Promise<void> {
    const answer = (await this.client.call('BootNotification', {
      chargePointVendor: 'Heliograph',
      chargePointModel: 'Emulated wallbox',
      chargePointSerialNumber: 'EMU-0001',
      firmwareVersion: '1.0.0',
    })) as { status: string; interval: number; currentTime: string };
    this.bootStatus = answer.status;
    // §4.2: the charge point takes the central system's time (a test's own clock stays its own).
    if (this.ownClock) this.clockOffsetMs = Date.parse(answer.currentTime) - Date.now();
    this.heartbeatIntervalS = answer.interval;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (answer.interval > 0)
      this.heartbeat = setInterval(() => {
        if (!this.silent) void this.client.call('Heartbeat', {}).catch(() => {});
      }, answer.interval * 1000);
    await this.sendStatus();
  }

  /**
   * Plugs the car in: Preparing, then (after Authorize when configured) StartTransaction. The
   * car comes at `carSoc` (default the options' `car.soc`).
   */
  async plugIn(idTag = 'CAR-TAG-1', carSoc = this.options.car.soc): Promise<void> {
    this.plugged = true;
    this.carSoc = carSoc;
    await this.setStatus('Preparing');
    await this.startTransaction(idTag);
  }

  /** Unplugs: StopTransaction (EVDisconnected), then Available. */
  async unplug(): Promise<void> {
    this.plugged = false;
    await this.stopTransaction('EVDisconnected');
    await this.setStatus(this.inoperative ? 'Unavailable' : 'Available');
  }

  private async startTransaction(idTag: string): Promise<boolean> {
    this.tick();
    if (this.options.authorizeFirst) {
      const auth = (await this.client.call('Authorize', { idTag })) as { idTagInfo: { status: string } };
      this.lastAuthorization = auth.idTagInfo.status;
      if (auth.idTagInfo.status !== 'Accepted') return false;
    }
    const answer = (await this.client.call('StartTransaction', {
      connectorId: 1,
      idTag,
      meterStart: Math.round(this.energyWh),
      timestamp: isoTime(this.clock()),
    })) as { idTagInfo: { status: string }; transactionId: number };
    this.lastAuthorization = answer.idTagInfo.status;
    // §4.8: a refused tag ends the transaction the central system numbered anyway.
    if (answer.idTagInfo.status !== 'Accepted') {
      await this.client.call('StopTransaction', {
        transactionId: answer.transactionId,
        meterStop: Math.round(this.energyWh),
        timestamp: isoTime(this.clock()),
        reason: 'DeAuthorized',
      });
      return false;
    }
    this.transactionId = answer.transactionId;
    this.tick();
    return true;
  }

  private async stopTransaction(reason: string): Promise<void> {
    this.tick();
    const id = this.transactionId;
    if (id === null) return;
    this.transactionId = null;
    this.profiles.endTransaction(id);
    this.powerW = 0;
    await this.client.call('StopTransaction', {
      transactionId: id,
      meterStop: Math.round(this.energyWh),
      timestamp: isoTime(this.clock()),
      reason,
    });
  }

  /**
   * Moves the car's battery on to now at the current offered since the last tick, and the
   * connector's status with it (Charging, SuspendedEVSE below 6 A, SuspendedEV when full).
   */
  tick(): void {
    const now = this.clock();
    const dtMs = this.lastTick === null ? 0 : Math.max(0, now - this.lastTick);
    this.profiles.prune(now);
    this.lastTick = now;
    if (this.transactionId !== null && this.powerW > 0) {
      const wh = (this.powerW * dtMs) / 3_600_000;
      this.energyWh += wh;
      this.carSoc = Math.min(100, this.carSoc + (wh / 1000 / this.options.car.capacityKWh) * 100);
    }
    const { currentA, phases } = this.offered();
    const drawn = Math.min(currentA, this.options.car.maxCurrentA);
    const running = this.transactionId !== null && !this.inoperative;
    const full = this.carSoc >= 100;
    this.powerW = running && !full && drawn >= MIN_CURRENT_A ? Math.floor(drawn) * phases * VOLTAGE : 0;
    if (running) void this.setStatus(full ? 'SuspendedEV' : this.powerW > 0 ? 'Charging' : 'SuspendedEVSE');
  }

  private async setStatus(status: ConnectorStatus): Promise<void> {
    if (status === this.status) return;
    this.status = status;
    await this.sendStatus().catch(() => {});
  }

  private async sendStatus(): Promise<void> {
    await this.client.call('StatusNotification', {
      connectorId: 1,
      errorCode: 'NoError',
      status: this.status,
      timestamp: isoTime(this.clock()),
    });
  }

  /** §4.7 MeterValues of connector 1: power, energy register, current per phase, the car's SoC. */
  async sendMeterValues(force = false): Promise<void> {
    if (this.silent && !force) return;
    this.tick();
    const { phases } = this.offered();
    const perPhase = this.powerW / (phases * VOLTAGE);
    const sample = (value: number, measurand: string, unit: string, extra: Partial<SampledValue> = {}) => ({
      value: String(Math.round(value * 10) / 10),
      context: 'Sample.Periodic',
      measurand,
      unit,
      ...extra,
    });
    const sampledValue = [
      sample(this.powerW, 'Power.Active.Import', 'W'),
      sample(this.energyWh, 'Energy.Active.Import.Register', 'Wh'),
      ...(['L1', 'L2', 'L3'] as const).map((phase, i) =>
        sample(i < phases ? perPhase : 0, 'Current.Import', 'A', { phase }),
      ),
      ...(this.plugged ? [sample(this.carSoc, 'SoC', 'Percent', { location: 'EV' })] : []),
    ];
    await this.client.call('MeterValues', {
      connectorId: 1,
      ...(this.transactionId === null ? {} : { transactionId: this.transactionId }),
      meterValue: [{ timestamp: isoTime(this.clock()), sampledValue }],
    });
  }

  // What the central system may ask (OCPP 1.6 chapter 5).

  private handleCalls(): void {
    const c = this.client;
    c.on('call', ({ outbound }: { outbound: boolean }) => {
      if (!outbound) this.lastCallAt = Date.now();
    });
    c.handle('SetChargingProfile', ({ params }) => {
      const { connectorId, csChargingProfiles: profile } = params as {
        connectorId: number;
        csChargingProfiles: ChargingProfile;
      };
      if (this.refuseProfiles) return Promise.resolve({ status: 'Rejected' });
      // §5.16: a TxProfile without a transaction on its connector is discarded.
      if (
        profile.chargingProfilePurpose === 'TxProfile' &&
        (this.transactionId === null || (profile.transactionId ?? this.transactionId) !== this.transactionId)
      )
        return Promise.resolve({ status: 'Rejected' });
      if (profile.chargingProfilePurpose === 'TxProfile' && profile.transactionId === undefined)
        profile.transactionId = this.transactionId!;
      this.profiles.set(connectorId, profile);
      setImmediate(() => this.tick());
      return Promise.resolve({ status: 'Accepted' });
    });
    c.handle('ClearChargingProfile', ({ params }) => {
      const cleared = this.profiles.clear(params as Parameters<ProfileStore['clear']>[0]);
      setImmediate(() => this.tick());
      return Promise.resolve({ status: cleared ? 'Accepted' : 'Unknown' });
    });
    c.handle('RemoteStartTransaction', ({ params }) => {
      if (!this.plugged || this.transactionId !== null || this.inoperative)
        return Promise.resolve({ status: 'Rejected' });
      setImmediate(() => void this.startTransaction(String(params!.idTag)).catch(() => {}));
      return Promise.resolve({ status: 'Accepted' });
    });
    c.handle('RemoteStopTransaction', ({ params }) => {
      if (this.transactionId === null || params!.transactionId !== this.transactionId)
        return Promise.resolve({ status: 'Rejected' });
      setImmediate(
        () =>
          void this.stopTransaction('Remote')
            .then(() => this.setStatus(this.plugged ? 'Finishing' : 'Available'))
            .catch(() => {}),
      );
      return Promise.resolve({ status: 'Accepted' });
    });
    c.handle('ChangeAvailability', ({ params }) => {
      // §5.2: while a transaction runs, Inoperative is Scheduled for its end; this emulator applies it at once.
      this.inoperative = params!.type === 'Inoperative';
      setImmediate(() => {
        this.tick();
        void this.setStatus(this.inoperative ? 'Unavailable' : this.plugged ? 'Preparing' : 'Available');
      });
      return Promise.resolve({ status: 'Accepted' });
    });
    c.handle('TriggerMessage', ({ params }) => {
      const message = String(params!.requestedMessage);
      const send: Record<string, () => Promise<unknown>> = {
        BootNotification: () => this.boot(),
        Heartbeat: () => c.call('Heartbeat', {}),
        MeterValues: () => this.sendMeterValues(true),
        StatusNotification: () => this.sendStatus(),
      };
      const action = send[message];
      if (!action) return Promise.resolve({ status: 'NotImplemented' });
      // §5.17: the requested message follows the answer.
      setImmediate(() => void action().catch(() => {}));
      return Promise.resolve({ status: 'Accepted' });
    });
    c.handle(({ method }) => {
      // ocpp-rpc types its RPC errors as plain records; they are Error objects (lib/util.js).
      throw createRPCError('NotImplemented', `${String(method)} is not implemented by this emulator`) as Error;
    });
  }
}
