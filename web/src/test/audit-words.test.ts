/// <reference types="node" />
// An audit entry's values as the owner reads them on the Access screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditValueText } from '../ui/format.js';

test('a value is read as written; nothing is a dash', () => {
  assert.equal(auditValueText('Solar first'), 'Solar first');
  assert.equal(auditValueText(3200), '3200');
  assert.equal(auditValueText(true), 'true');
  assert.equal(auditValueText(null), '—');
  assert.equal(auditValueText(''), '—', 'an entry with no old value (a new instance)');
  assert.equal(auditValueText('{not json'), '{not json');
});

test('a structured setting saved as JSON reads as words: pairs, lists, nested objects in parentheses', () => {
  assert.equal(
    auditValueText('{"grants":{"writes":["battery_1/battery_control_*"],"hosts":["api.acme.example","*"]}}'),
    'grants (writes: battery_1/battery_control_*; hosts: api.acme.example, *)',
  );
  assert.equal(auditValueText('{"grants":{}}'), 'grants (none)');
  assert.equal(auditValueText({ enabled: true, keep: 7 }), 'enabled: true; keep: 7');
  assert.equal(auditValueText('[]'), 'none');
});
