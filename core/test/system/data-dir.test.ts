// The data directory's plugin setup starts as a copy of the default and is the user's from
// then on; the folder and its files are readable by their owner only.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { dataPluginsFile, prepareDataDir } from '../../src/system/data-dir.js';
import { tempDir } from '../helpers/tmp.js';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('data directory', () => {
  it('plugins.json is copied from the default at the first start, then never replaced', () => {
    const dir = tempDir();
    const fallback = join(dir, 'default.json');
    writeFileSync(fallback, '{ "plugins": [{ "id": "sim", "plugin": "simulator" }] }\n');
    const data = join(dir, 'data');
    mkdirSync(data);
    const file = dataPluginsFile(data, fallback);
    assert.equal(file, join(data, 'plugins.json'));
    assert.equal(readFileSync(file, 'utf8'), readFileSync(fallback, 'utf8'));
    assert.equal(mode(file), 0o600, 'plugins hold API keys');
    writeFileSync(file, '{ "plugins": [] }\n');
    writeFileSync(fallback, '{ "plugins": [{ "id": "new-default", "plugin": "simulator" }] }\n');
    dataPluginsFile(data, fallback);
    assert.equal(
      readFileSync(file, 'utf8'),
      '{ "plugins": [] }\n',
      "an upgrade's new default never meets the user's setup",
    );
  });

  it('without a default it starts with no plugins', () => {
    const data = tempDir();
    const file = dataPluginsFile(data, join(data, 'no-such-default.json'));
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { plugins: [] });
  });

  it('a world-readable data directory from an older release is tightened', () => {
    const data = join(tempDir(), 'data');
    mkdirSync(data, { mode: 0o755 });
    chmodSync(data, 0o755);
    for (const name of ['heliograph.db', 'site-id', 'config.json'])
      writeFileSync(join(data, name), 'x', { mode: 0o644 });
    writeFileSync(join(data, 'unrelated.txt'), 'x', { mode: 0o644 });
    prepareDataDir(data);
    assert.equal(mode(data), 0o700);
    for (const name of ['heliograph.db', 'site-id', 'config.json']) assert.equal(mode(join(data, name)), 0o600, name);
  });
});
