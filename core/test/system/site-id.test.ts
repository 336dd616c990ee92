import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadSiteId, SITE_ID_FILE } from '../../src/system/site-id.js';
import { tempDir } from '../helpers/tmp.js';

describe('site id', () => {
  it('is chosen once, kept in the data directory and read back unchanged', () => {
    const dir = tempDir();
    const id = loadSiteId(dir);
    assert.ok(Number.isInteger(id) && id >= 1 && id <= 2 ** 31 - 1, `positive 32-bit integer, got ${id}`);
    assert.equal(readFileSync(join(dir, SITE_ID_FILE), 'utf8'), `${id}\n`);
    assert.equal(loadSiteId(dir), id);
  });

  it('two units get different ids', () => {
    assert.notEqual(loadSiteId(tempDir()), loadSiteId(tempDir()));
  });

  it('a damaged file stops the start with what to do, rather than a new identity', () => {
    const dir = tempDir();
    writeFileSync(join(dir, SITE_ID_FILE), 'not a number');
    assert.throws(() => loadSiteId(dir), /should hold the unit's site id .* delete it to choose a new id/);
    writeFileSync(join(dir, SITE_ID_FILE), '0\n');
    assert.throws(() => loadSiteId(dir), /positive whole number/);
  });
});
