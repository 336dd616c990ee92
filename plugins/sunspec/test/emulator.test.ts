// The SunSpec emulator on the wire, read as a SunSpec client reads a device: the "SunS"
// marker at 40000, the model chain walked block by block, points decoded with their scale
// factors, "not implemented" markers where a single-phase hybrid has nothing, a writable
// storage control that changes the battery, exceptions, silence and corruption.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connectRawTo, readHoldingOverTcp, sendUnanswered, type RawClient } from '@heliograph/plugins-sdk/emulator';
import { startEmulator, SunSpecDevice } from '../src/emulator/main.js';

let clock = new Date(2026, 5, 21, 12, 0);
const { emulator, client, close } = await connectRawTo(startEmulator({ now: () => clock }));
after(close);

let transaction = 0;
const read = (address: number, count: number) =>
  readHoldingOverTcp(client, { transaction: ++transaction, address, count });
const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);
const text = (words: number[]) =>
  Buffer.from(words.flatMap((w) => [w >> 8, w & 0xff]))
    .toString('ascii')
    .replace(/\0+$/, '');
/** A point with its scale factor; null when either is "not implemented". */
const scaled = (raw: number, sf: number) =>
  raw === 0x8000 || sf === 0x8000
    ? null
    : signed(sf) < 0
      ? signed(raw) / 10 ** -signed(sf)
      : signed(raw) * 10 ** signed(sf);

/** Walks the chain from 40002 as a driver does: model id -> its data registers. */
async function readChain(c: RawClient = client): Promise<Map<number, number[]>> {
  const models = new Map<number, number[]>();
  let at = 40002;
  for (;;) {
    const [id, length] = await readHoldingOverTcp(c, { transaction: ++transaction, address: at, count: 2 });
    if (id === 0xffff) break;
    const data: number[] = [];
    for (let i = 0; i < length!; i += 125)
      data.push(
        ...(await readHoldingOverTcp(c, {
          transaction: ++transaction,
          address: at + 2 + i,
          count: Math.min(125, length! - i),
        })),
      );
    models.set(id!, data);
    at += 2 + length!;
  }
  return models;
}

test('discovery: SunS at 40000, then models 1, 101, 160, 203, 124, 802 and the end marker', async () => {
  assert.deepEqual(await read(40000, 2), [0x5375, 0x6e53]);
  await assert.rejects(read(0, 2), /exception 2/, 'nothing at 0');
  const models = await readChain();
  assert.deepEqual([...models.keys()], [1, 101, 160, 203, 124, 802]);
  assert.deepEqual(
    [...models].map(([id, data]) => [id, data.length]),
    [
      [1, 66],
      [101, 50],
      [160, 48],
      [203, 105],
      [124, 24],
      [802, 62],
    ],
  );
  const common = models.get(1)!;
  assert.equal(text(common.slice(0, 16)), 'Heliograph');
  assert.equal(text(common.slice(16, 32)), 'Emulated Hybrid 5K');
  assert.equal(text(common.slice(32, 40)), '', 'Opt not implemented');
  assert.equal(text(common.slice(40, 48)), '1.4.2');
  assert.equal(text(common.slice(48, 64)), 'HG5K-000123');
});

test('scaled values add up at noon; unimplemented points read as such', async () => {
  const models = await readChain();
  const inv = models.get(101)!;
  const acW = scaled(inv[12]!, inv[13]!)!;
  assert.ok(acW > 1000, `AC power ${acW} W`);
  assert.equal(scaled(inv[8]!, inv[11]!), 230.1, 'PhVphA with V_SF -1');
  assert.equal(inv[9], 0xffff, 'PhVphB not implemented (uint16)');
  assert.equal(scaled(inv[18]!, inv[19]!), null, 'VAr not implemented (int16 and its sunssf)');
  assert.equal(scaled(inv[14]!, inv[15]!), 50.01, 'Hz');
  assert.equal(inv[36], 4, 'St: MPPT');
  assert.ok(inv[22]! * 65536 + inv[23]! > 12_000_000, 'WH lifetime acc32');

  const mppt = models.get(160)!;
  assert.equal(mppt[6], 2, 'two MPPTs');
  const string = (i: number) => mppt.slice(8 + 20 * i, 28 + 20 * i);
  assert.equal(text(string(0).slice(1, 9)), 'String 1');
  const dcW = [0, 1].map((i) => scaled(string(i)[11]!, mppt[2]!)!);
  assert.ok(dcW.every((w) => w > 0));
  assert.equal(string(1)[16], 0x8000, 'module Tmp not implemented');

  const meter = models.get(203)!;
  const gridW = scaled(meter[16]!, meter[20]!)!;
  const battery = models.get(802)!;
  const batteryW = scaled(battery[45]!, battery[61]!)!;
  assert.ok(batteryW < 0, 'charging at noon (802: + discharging)');
  assert.equal(meter[18], 0x8000, 'WphB not implemented');
  // The house is fed by the inverter's AC and the grid (+ import).
  assert.ok(gridW < 0, `exporting at noon: ${gridW} W`);
  assert.equal(acW + gridW > 0, true, 'load = AC + grid');
  assert.equal(acW, dcW[0]! + dcW[1]! + batteryW, 'AC = PV + battery');
  assert.equal(scaled(battery[9]!, battery[54]!), 50, 'SoC with SoC_SF -1');
  const storage = models.get(124)!;
  assert.equal(scaled(storage[6]!, storage[20]!), 50, '124 ChaState');
  assert.equal(storage[9], 4, 'ChaSt: charging');
});

test('a write to model 124 caps charging; bad writes get exceptions', async () => {
  const wChaMax = emulator.device.storageAddress + 2;
  // FC16: WChaMax = 500 W.
  const write = (address: number, value: number) =>
    Buffer.from([0, 99, 0, 0, 0, 9, 1, 0x10, address >> 8, address & 0xff, 0, 1, 2, value >> 8, value & 0xff]);
  client.send(write(wChaMax, 500));
  assert.equal((await client.read((b) => (b.length >= 12 ? 12 : -1)))[7], 0x10);
  const battery = (await readChain()).get(802)!;
  assert.equal(signed(battery[45]!), -500, 'charging at WChaMax');
  client.send(write(wChaMax, 9000));
  assert.deepEqual([...(await client.read((b) => (b.length >= 9 ? 9 : -1))).subarray(7)], [0x90, 0x03]);
  client.send(write(40002, 1));
  assert.deepEqual([...(await client.read((b) => (b.length >= 9 ? 9 : -1))).subarray(7)], [0x90, 0x02]);
  clock = new Date(2026, 5, 21, 13, 0);
  const later = (await readChain()).get(802)!;
  assert.ok(later[9]! > 500, `SoC rose: ${later[9]}`);
  client.send(write(wChaMax, 3000));
  await client.read((b) => (b.length >= 12 ? 12 : -1));
});

test('night: no PV, the battery discharges, inverter sleeping', async () => {
  clock = new Date(2026, 5, 21, 23, 0);
  const models = await readChain();
  assert.equal(models.get(101)![36], 2, 'St: SLEEPING');
  assert.ok(signed(models.get(802)![45]!) > 0, 'discharging');
  assert.equal(models.get(124)![9], 3, 'ChaSt: discharging');
});

/** FC16 over TCP: writes `values` from `address`; fails on an exception. */
async function writeRegisters(address: number, values: number[]): Promise<void> {
  const pdu = [0x10, address >> 8, address & 0xff, 0, values.length, values.length * 2];
  for (const value of values) pdu.push(value >> 8, value & 0xff);
  const id = ++transaction;
  client.send(Buffer.from([id >> 8, id & 0xff, 0, 0, 0, pdu.length + 1, 1, ...pdu]));
  const reply = await client.read((b) => (b.length < 9 ? -1 : b[7]! & 0x80 ? 9 : b.length >= 12 ? 12 : -1));
  assert.equal(reply[7], 0x10, `write of ${values.length} register(s) at ${address}: exception ${reply[8]}`);
}

test("model 124's revert timeout: counted down by the device's clock, restarted by a write, then the controls revert", async () => {
  clock = new Date(2026, 5, 21, 22, 0);
  const data = emulator.device.storageAddress + 2;
  const controls = async () => {
    const m = (await readChain()).get(124)!;
    return { mode: m[3], out: signed(m[10]!), in: signed(m[11]!), revertS: m[13], grid: m[15] };
  };
  const batteryW = async () => signed((await readChain()).get(802)![45]!);
  // Forced charging from the grid at 50 % of WChaMax for 30 minutes, as the driver writes it.
  await writeRegisters(data + 10, [-5000 & 0xffff, 5000, 0, 1800, 0, 1]);
  await writeRegisters(data + 3, [3]);
  assert.deepEqual(await controls(), { mode: 3, out: -5000, in: 5000, revertS: 1800, grid: 1 });
  assert.equal(await batteryW(), -1500, 'charging from the grid at night');
  clock = new Date(2026, 5, 21, 22, 29);
  assert.equal((await controls()).mode, 3, 'within the timeout');
  assert.equal(emulator.device.storage.revertInS(emulator.device.now().getTime()), 60);
  await writeRegisters(data + 13, [1800]); // the renewal
  clock = new Date(2026, 5, 21, 22, 58);
  assert.equal((await controls()).mode, 3, 'past the first timeout, within the renewed one');
  const soc = emulator.device.soc;
  clock = new Date(2026, 5, 21, 23, 0);
  assert.deepEqual(
    await controls(),
    { mode: 0, out: 10000, in: 10000, revertS: 1800, grid: 1 },
    'StorCtl_Mod and both rates back to their defaults; the timeout and ChaGriSet as written',
  );
  assert.ok((await batteryW()) > 0, 'self-consumption: discharging to the night load');
  // One minute forced, one minute back to normal: the SOC rose by less than two minutes of charging.
  const rise = emulator.device.soc - soc;
  assert.ok(rise > 0 && rise < ((1500 * 2) / 60 / 10240) * 100, `SOC ${soc} -> ${emulator.device.soc}`);
  await writeRegisters(data + 13, [0]);
  await writeRegisters(data + 15, [0]);
});

test("the device's clock offset lets a revert timeout run out without touching the test's clock", () => {
  const at = new Date(2026, 5, 21, 22, 0);
  const device = new SunSpecDevice({ now: () => at });
  const data = device.storageAddress + 2;
  device.writeRegisters({ address: data + 10, values: [-5000 & 0xffff, 5000, 0, 60, 0, 1] });
  device.writeRegisters({ address: data + 3, values: [3] });
  const mode = () => device.readHoldingRegisters({ address: data + 3, count: 1 })[0];
  device.clockOffsetMs = 59_000;
  assert.equal(mode(), 3);
  device.clockOffsetMs = 60_000;
  assert.equal(mode(), 0, 'reverted at the end of the 60 s timeout');
  device.storage.mode = 3; // forced without a timeout: stays so
  device.writeRegisters({ address: data + 13, values: [0] });
  device.clockOffsetMs = 24 * 3_600_000;
  assert.equal(mode(), 3);
});

test('RTU over TCP, silence and corruption', async () => {
  await sendUnanswered(emulator, client, Buffer.from([0, 200, 0, 0, 0, 6, 1, 3, 0x9c, 0x40, 0, 2]));
  assert.deepEqual(await read(40000, 2), [0x5375, 0x6e53], 'the silenced request got no answer');
  emulator.corruptNext(1);
  await assert.rejects(read(40000, 2), /does not match/);
  assert.deepEqual(await read(40000, 2), [0x5375, 0x6e53]);
  const { client: c, close: closeRtu } = await connectRawTo(
    startEmulator({ now: () => clock, transport: 'rtu-over-tcp' }),
  );
  c.send(Buffer.from('01039c400002eb8f', 'hex'));
  const reply = await c.read((b) => (b.length >= 9 ? 9 : -1));
  assert.equal(reply.subarray(3, 7).toString(), 'SunS');
  await closeRtu();
});
