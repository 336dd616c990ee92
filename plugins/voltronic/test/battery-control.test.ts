import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modeOf, utilityCurrent } from '../src/battery-control.js';
import {
  chargerFamily,
  LV6548_CHARGER,
  maxChargeCurrentCommands,
  PI30_CHARGER,
  PIP_MK_CHARGER,
} from '../src/models.js';
import { VoltronicDevice } from '../src/emulator/device.js';

test('the utility charging current: the largest listed one within the power, else the smallest', () => {
  const listed = [2, 10, 20, 30, 40, 50, 60];
  assert.equal(utilityCurrent(1500, 52, listed), 20);
  assert.equal(utilityCurrent(1560, 52, listed), 30, 'exactly 30 A x 52 V');
  assert.equal(utilityCurrent(50, 52, listed), 2, 'less than the smallest: the smallest');
  assert.equal(utilityCurrent(99_000, 52, [60, 2, 30]), 60, 'order does not matter');
});

test('emulator: MUCHGC sets the utility current QPIRI reports; others are NAKed', () => {
  const device = new VoltronicDevice({ now: () => new Date(2026, 5, 21, 22, 0) });
  assert.equal(device.answer('QMUCHGCR'), '(002 010 020 030 040 050 060');
  assert.equal(device.answer('MUCHGC020'), '(ACK');
  assert.equal(device.answer('QPIRI').slice(1).split(' ')[13], '020');
  assert.equal(device.answer('MUCHGC025'), '(NAK', 'not a listed current');
  assert.equal(device.answer('MUCHGC20'), '(NAK', 'three digits');
});

test("what the priorities mean as a battery mode, by the model's charger numbers", () => {
  const mode = (outputPriority: number, chargerPriority: number, family = PI30_CHARGER) =>
    modeOf({ outputPriority, chargerPriority }, family);
  assert.deepEqual([mode(2, 3), mode(0, 3), mode(0, 2), mode(0, 0)], ['normal', 'hold', 'charge', 'charge']);
  assert.equal(mode(1, 1), null, "the owner's own (solar first): not known to battery control");
  assert.equal(mode(2, 2), null, 'SBU with utility charging: not one of its modes');
  assert.equal(chargerFamily('045'), LV6548_CHARGER);
  assert.equal(chargerFamily(undefined), PI30_CHARGER);
  assert.deepEqual(
    [mode(2, 2, LV6548_CHARGER), mode(0, 2, LV6548_CHARGER), mode(0, 1, LV6548_CHARGER)],
    ['normal', 'hold', 'charge'],
  );
  assert.equal(PI30_CHARGER.utilityCurrentCommand(2), 'MUCHGC002', 'mnn: unit 0, 2 A');
  assert.equal(LV6548_CHARGER.utilityCurrentCommand(30), 'MUCHGC0030', 'uaaa');
});

test('emulator models: an MKS refuses PCP02, an LV6548 answers QGMN 045 and numbers its charger priorities its own way', () => {
  const now = () => new Date(2026, 5, 21, 22, 0);
  const mks = new VoltronicDevice({ now, model: 'MKS' });
  assert.equal(mks.answer('QGMN'), '(NAK');
  assert.equal(mks.answer('PCP02'), '(NAK');
  assert.equal(mks.answer('PCP00'), '(ACK');
  assert.equal(mks.charger, 'utility first');
  const lv = new VoltronicDevice({ now, model: 'LV6548' });
  assert.equal(lv.answer('QGMN'), '(045');
  assert.equal(lv.charger, 'only solar');
  assert.equal(lv.answer('QPIRI').slice(1).split(' ')[17], '2', 'only solar is 2 there');
  assert.equal(lv.answer('PCP03'), '(NAK');
  assert.equal(lv.answer('PCP01'), '(ACK');
  assert.equal(lv.charger, 'solar and utility');
  assert.equal(lv.answer('MUCHGC020'), '(NAK', 'uaaa, four digits');
  assert.equal(lv.answer('MUCHGC0020'), '(ACK');
  assert.deepEqual(lv.writes, ['PCP01', 'MUCHGC0020'], 'only what it took');
});

test('the max charging current command: MCHGC0nn below 100 A, MNCHGC0nnn from 100 A, as each model takes it', () => {
  assert.deepEqual(maxChargeCurrentCommands(60), ['MCHGC060', 'MNCHGC0060']);
  assert.deepEqual(maxChargeCurrentCommands(10), ['MCHGC010', 'MNCHGC0010']);
  assert.deepEqual(maxChargeCurrentCommands(110), ['MNCHGC0110'], 'never MCHGC110: unit 1 at 10 A on an HS');
  assert.deepEqual(maxChargeCurrentCommands(120), ['MNCHGC0120']);
  const now = () => new Date(2026, 5, 21, 22, 0);
  // The first command of the list each model takes, in the forms of its protocol document.
  const taken = (model: 'HS' | 'MKS' | 'MK' | 'LV6548', amps: number) => {
    const device = new VoltronicDevice({ now, model });
    const command = maxChargeCurrentCommands(amps).find((c) => device.answer(c) === '(ACK');
    return command && [command, device.maxChargeA];
  };
  assert.deepEqual(taken('HS', 60), ['MCHGC060', 60]);
  assert.deepEqual(taken('HS', 120), ['MNCHGC0120', 120]);
  assert.deepEqual(taken('MKS', 110), ['MNCHGC0110', 110]);
  assert.deepEqual(taken('LV6548', 60), ['MNCHGC0060', 60], 'no MCHGC on the MAX protocol: MNCHGC');
  assert.equal(taken('MK', 60), undefined, 'the PIP-GK / MK MNCHGC<nnn> is not sent: refused, not misread');
});

test('emulator models: a PIP-MK has no PCP00 (utility first) and answers QGMN 023', () => {
  const mk = new VoltronicDevice({ now: () => new Date(2026, 5, 21, 22, 0), model: 'MK' });
  assert.equal(mk.answer('QGMN'), '(023');
  assert.equal(mk.charger, 'only solar');
  assert.equal(mk.answer('PCP00'), '(NAK');
  assert.equal(mk.answer('PCP02'), '(ACK');
  assert.equal(mk.charger, 'solar and utility');
  assert.equal(mk.answer('MNCHGC060'), '(ACK', 'MNCHGC<nnn>');
  assert.equal(mk.answer('MCHGC060'), '(NAK');
  assert.equal(chargerFamily('023'), PIP_MK_CHARGER);
  assert.equal(chargerFamily('024'), PIP_MK_CHARGER);
  assert.deepEqual(PIP_MK_CHARGER.utilityCharging, [2], 'no utility first to fall back to');
  assert.deepEqual(
    PIP_MK_CHARGER.options.map((o) => o.value),
    [1, 2, 3],
  );
});
