import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { secret } from '@heliograph/plugins-sdk';
import { parseBody, ValidationError } from '../../src/contract/field-issues.js';
import { hideSecrets, keepSecrets, maskSecrets, secretPaths } from '../../src/plugins/instances/secrets.js';

const schema = z.strictObject({
  pollIntervalMs: z.number().int().min(1000),
  name: z.string().min(1).max(4),
  mode: z.enum(['a', 'b']),
  list: z.array(z.string()).min(1),
  ratio: z.number().max(1, 'must be at most 1 (a fraction, not a percentage)'),
});

test("zod's coded messages come out in plain words; a schema's own message wins", () => {
  try {
    parseBody(
      schema,
      { pollIntervalMs: 5.5, name: 'toolong', mode: 'c', list: [], ratio: 50, extra: true },
      { prefix: ['config'] },
    );
    assert.fail('should throw');
  } catch (err) {
    assert.ok(err instanceof ValidationError);
    assert.equal(err.status, 400);
    assert.deepEqual(err.issues, [
      { path: ['config', 'pollIntervalMs'], message: 'must be a whole number' },
      { path: ['config', 'name'], message: 'must be at most 4 characters long' },
      { path: ['config', 'mode'], message: 'must be one of "a", "b"' },
      { path: ['config', 'list'], message: 'must list at least 1 entry' },
      { path: ['config', 'ratio'], message: 'must be at most 1 (a fraction, not a percentage)' },
      { path: ['config', 'extra'], message: 'is not a known field: remove it' },
    ]);
    assert.match(err.message, /^config\.pollIntervalMs: must be a whole number$/m);
  }
  assert.throws(
    () => parseBody(schema.pick({ pollIntervalMs: true }), {}),
    (err: ValidationError) => err.issues[0]!.message === 'is required',
  );
  assert.throws(
    () => parseBody(schema.pick({ pollIntervalMs: true }), { pollIntervalMs: 10 }),
    (err: ValidationError) => err.issues[0]!.message === 'must be at least 1000',
  );
});

const pluginSchema = z.object({
  token: secret(z.string()).describe('API token'),
  home: z.string().optional(),
  account: z.object({ user: z.string(), password: secret(z.string()).optional() }).optional(),
  spare: secret(z.string()).nullable().default(null),
});
const jsonSchema = z.toJSONSchema(pluginSchema, { io: 'input' });

test('secret() fields are found in the JSON Schema, nested ones included, and marked writeOnly', () => {
  assert.deepEqual(secretPaths(jsonSchema), [['token'], ['account', 'password'], ['spare']]);
  assert.equal((jsonSchema.properties!.token as { writeOnly?: boolean }).writeOnly, true);
  assert.equal(
    (jsonSchema.properties!.token as { description?: string }).description,
    'API token',
    'describe() is kept',
  );
});

test('secrets are hidden from answers, masked in the audit, and kept when a form leaves them out', () => {
  const paths = secretPaths(jsonSchema);
  const stored = { token: 't-1', home: 'h', account: { user: 'u', password: 'p-1' } };
  assert.deepEqual(hideSecrets(stored, paths), {
    config: { home: 'h', account: { user: 'u' } },
    secrets: { token: true, 'account.password': true, spare: false },
  });
  assert.deepEqual(stored.account, { user: 'u', password: 'p-1' }, 'the stored config is not changed');
  assert.deepEqual(maskSecrets(stored, paths), { token: '***', home: 'h', account: { user: 'u', password: '***' } });
  assert.deepEqual(keepSecrets({ home: 'h2', account: { user: 'v' } }, stored, paths), {
    home: 'h2',
    account: { user: 'v', password: 'p-1' },
    token: 't-1',
  });
  assert.deepEqual(keepSecrets({ token: 't-2' }, stored, paths).token, 't-2', 'a given secret replaces the stored one');
});
