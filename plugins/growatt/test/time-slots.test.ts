// Growatt battery control's time slots as plain data: the block each mode writes (slot 1 of
// battery first or grid first, the protocol v1.24's "Priority set" holding 1070..1102), what a
// renewal changes, the write order, the device clock (holding 45..50), what the driver reads
// back as the device's mode; and the emulator's own reading of the same registers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clockTime, clockWords, slotsInForce, validControlWord } from '../src/emulator/slots.js';
import { growattModel } from '../src/models.js';
import {
  BLOCK_LENGTH,
  blockWrites,
  deviceTime,
  inSlot,
  leaseBlock,
  minutesOf,
  slotMode,
  timeWord,
  type LeaseInput,
} from '../src/time-slots.js';

const MIN = 60_000;
/** The block at power-on: rates 100 %, stop SOCs 10 and 100, every slot off. */
const fresh = () => {
  const block = new Array<number>(BLOCK_LENGTH).fill(0);
  block[0] = 100;
  block[1] = 10;
  block[20] = 100;
  block[21] = 100;
  return block;
};
const at = (block: readonly number[], address: number) => block[address - 1070]!;
const lease = (input: Partial<LeaseInput>): number[] =>
  leaseBlock({
    command: { mode: 'charge', powerW: 1500, targetSoc: 90 },
    block: fresh(),
    now: { minute: 22 * 60, second: 40 },
    leaseMs: 30 * MIN,
    maxChargeW: 3000,
    maxDischargeW: 2000,
    ...input,
  });

test('time words: hour in the high byte, minute in the low byte', () => {
  assert.equal(timeWord(22 * 60 + 30), 0x161e);
  assert.equal(minutesOf(0x161e), 22 * 60 + 30);
  assert.equal(inSlot(0x1600, 0x161e, 22 * 60 + 29), true);
  assert.equal(inSlot(0x1600, 0x161e, 22 * 60 + 30), false, 'the stop minute is not in the slot');
  assert.equal(inSlot(0x1700, 0x0100, 30), true, 'a start after the stop runs past midnight');
});

test('each mode as slot 1 of its priority, with its settings', () => {
  const charge = lease({});
  assert.deepEqual(
    [1100, 1101, 1102].map((a) => at(charge, a)),
    [0x1600, 0x161e, 1],
    'battery first 22:00..22:30, on',
  );
  assert.deepEqual(
    [1090, 1091, 1092].map((a) => at(charge, a)),
    [50, 90, 1],
    '1500 of 3000 W, to 90 %, AC charge',
  );
  assert.equal(at(charge, 1082), 0, 'grid first slot 1 off');

  const hold = lease({ command: { mode: 'hold', powerW: 1500, targetSoc: 90 }, block: charge });
  assert.deepEqual(
    [1090, 1091, 1092, 1102].map((a) => at(hold, a)),
    [50, 90, 0, 1],
    'battery first without AC charge',
  );

  const discharge = lease({ command: { mode: 'discharge', powerW: 2000, targetSoc: 30 }, block: charge });
  assert.deepEqual(
    [1070, 1071, 1080, 1081, 1082].map((a) => at(discharge, a)),
    [100, 30, 0x1600, 0x161e, 1],
  );
  assert.equal(at(discharge, 1102), 0, 'battery first slot 1 off');

  const normal = lease({ command: { mode: 'normal', powerW: 0, targetSoc: 50 }, block: discharge });
  assert.deepEqual(
    [1082, 1102].map((a) => at(normal, a)),
    [0, 0],
  );
  assert.equal(at(normal, 1071), 30, 'settings left as they are');
});

test('a renewal writes the stop word alone; past an hour the start moves too; a slot never passes midnight', () => {
  const first = lease({});
  const renewal = lease({ block: first, now: { minute: 22 * 60 + 15, second: 40 } });
  assert.deepEqual(blockWrites(first, renewal), [{ address: 1101, values: [0x162d] }], '22:45');
  const third = lease({ block: renewal, now: { minute: 22 * 60 + 30, second: 40 } });
  assert.deepEqual(blockWrites(renewal, third), [{ address: 1101, values: [0x1700] }], '23:00: an hour from 22:00');
  const fourth = lease({ block: third, now: { minute: 22 * 60 + 45, second: 40 } });
  assert.deepEqual(blockWrites(third, fourth), [{ address: 1100, values: [0x162d, 0x170f] }], '22:45..23:15');
  const late = lease({ now: { minute: 23 * 60 + 50, second: 0 } });
  assert.deepEqual([at(late, 1100), at(late, 1101)], [0x1732, 0x173b], '23:50..23:59, not past midnight');
});

test('writes: slots switched off first, the slot switched on last', () => {
  const charge = lease({});
  const discharge = lease({ command: { mode: 'discharge', powerW: 2000, targetSoc: 30 }, block: charge });
  assert.deepEqual(blockWrites(charge, discharge), [
    { address: 1102, values: [0] },
    { address: 1071, values: [30] },
    { address: 1080, values: [0x1600, 0x161e] },
    { address: 1082, values: [1] },
  ]);
});

test("the device's mode from slot 1 and its clock", () => {
  const charge = lease({});
  assert.equal(slotMode(charge, 22 * 60 + 10), 'charge');
  assert.equal(slotMode(charge, 22 * 60 + 30), null, 'on, not in force: it will be tomorrow');
  assert.equal(slotMode(fresh(), 600), 'normal');
  assert.equal(slotMode(lease({ command: { mode: 'hold', powerW: 0, targetSoc: 50 } }), 22 * 60), 'hold');
  assert.deepEqual(deviceTime([26, 12, 21, 22, 5, 40]), { minute: 22 * 60 + 5, second: 40 });
  assert.throws(() => deviceTime([26, 2, 30, 0, 0, 0]), /no date and time/);
});

test('the emulator reads the same registers by its own clock', () => {
  const holding = new Map(lease({}).map((word, i) => [1070 + i, word]));
  assert.equal(slotsInForce(holding, new Date(2026, 11, 21, 22, 29, 59)), 1);
  assert.equal(slotsInForce(holding, new Date(2026, 11, 21, 22, 30)), 0, 'load first at the stop');
  assert.deepEqual(clockWords(new Date(2026, 11, 21, 22, 5, 40)), [26, 12, 21, 22, 5, 40]);
  assert.equal(clockTime([26, 2, 30, 0, 0, 0]), null);
  assert.equal(validControlWord(1101, 0x183b), false, 'hour 24');
  assert.equal(validControlWord(1044, 1), null, '1044 is not a setting');
});

test('identification: the Table 3-1 code of holding 30000, else of holding 43, else the configured family', () => {
  assert.equal(growattModel({ vpp: 3502, legacy: 0 }, 'auto').label, 'SPH 3000-6000TL');
  assert.equal(growattModel({ vpp: null, legacy: 3725 }, 'auto').label, 'SPA 4000-10000TL3 BH');
  assert.throws(() => growattModel({ vpp: null, legacy: 0x0200 }, 'auto'), /holding 30000 refused.*512 in holding 43/);
  assert.equal(growattModel({ vpp: null, legacy: 0x0200 }, 'spa').value.family, 'spa');
  assert.throws(() => growattModel({ vpp: 3701, legacy: 0 }, 'sph'), /device type code 3701/);
});
