import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utilityCurrent } from '../src/battery-control.js';
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
