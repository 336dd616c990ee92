import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { configJsonSchema } from '../../src/config/json-schema.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp.js';

test('the defaults load, and the time zone defaults to the system one', () => {
  const config = loadConfig();
  assert.equal(config.energy.resetPeriod, 'weekly');
  assert.equal(config.site.timeZone, null);
  assert.equal(config.prices.multiplier, 1);
});

test('a user file overrides any subset of keys', () => {
  const file = join(tempDir(), 'config.json');
  writeFileSync(file, JSON.stringify({ energy: { resetPeriod: 'daily' }, site: { timeZone: 'Europe/Berlin' } }));
  const config = loadConfig(file);
  assert.equal(config.energy.resetPeriod, 'daily');
  assert.equal(config.site.timeZone, 'Europe/Berlin');
  assert.equal(config.site.latitude, 52.52, 'untouched keys keep their defaults');
});

test('a bad file names every bad key and what was expected', () => {
  const file = join(tempDir(), 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      site: { timeZone: 'Mars/Olympus', latitude: 'north' },
      history: { retentionDays: -1 },
      colour: 'red',
    }),
  );
  assert.throws(
    () => loadConfig(file),
    (err: Error) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /config\.json: site\.timeZone: an IANA time zone/);
      assert.match(
        err.message,
        /config\.json: site\.latitude: .*expected number.*"north"|config\.json: site\.latitude: .*expected number, received string/,
      );
      assert.match(err.message, /config\.json: history\.retentionDays: /);
      assert.match(err.message, /config\.json: Unrecognized key: "colour"/);
      return true;
    },
  );
});

test('a file that is not JSON says so', () => {
  const file = join(tempDir(), 'config.json');
  writeFileSync(file, '{ "site": ');
  assert.throws(() => loadConfig(file), /config\.json: not valid JSON/);
});

test('config/schema.json is generated from the schema and up to date (npm run config:schema)', () => {
  const file = join(REPO_ROOT, 'config', 'schema.json');
  assert.equal(readFileSync(file, 'utf8'), configJsonSchema());
});
