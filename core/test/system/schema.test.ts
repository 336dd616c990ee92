// The database's schema version at the start: a newer file is refused untouched, an older one
// is copied before it is upgraded, and an upgrade that fails leaves the schema as it was.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { systemClock } from '../../src/clock.js';
import { migrate, openDatabase } from '../../src/db.js';
import { authMigrations } from '../../src/auth/service.js';
import { auditMigrations } from '../../src/writes/audit.js';
import { energyMigrations } from '../../src/energy/kwh-totals.js';
import { pluginStoreMigrations } from '../../src/plugins/context/plugin-store.js';
import { openCoreDatabase } from '../../src/history/open.js';
import { KNOWN_MIGRATIONS, NewerSchemaError, prepareSchema } from '../../src/schema.js';
import { tempDir } from '../helpers/tmp.js';

const CORE = [...auditMigrations, ...energyMigrations, ...pluginStoreMigrations];

describe('schema version', () => {
  it('a database with steps this version does not know stops the start, untouched', async () => {
    const file = join(tempDir(), 'heliograph.db');
    const db = await openDatabase(file);
    await migrate(db, CORE);
    await db.run("INSERT INTO migrations (id, applied_at) VALUES ('energy:99', 1)");
    await db.close();
    const bytes = readFileSync(file);
    await assert.rejects(
      openCoreDatabase(file, { migrations: CORE, prepare: prepareSchema }, systemClock),
      (err: Error) => {
        assert.ok(err instanceof NewerSchemaError);
        assert.match(err.message, /written by a newer Heliograph.*energy:99.*Nothing was changed/);
        return true;
      },
    );
    assert.deepEqual(readFileSync(file), bytes, 'the file is as it was');
    assert.deepEqual(readdirSync(join(file, '..')).sort(), ['heliograph.db'], 'not set aside as damaged either');
  });

  it('an older database is copied beside itself before the upgrade; a new one is not', async () => {
    const dir = tempDir();
    const file = join(dir, 'heliograph.db');
    const old = await openDatabase(file);
    await migrate(old, authMigrations);
    await old.close();
    const { db } = await openCoreDatabase(file, { migrations: CORE, prepare: prepareSchema }, systemClock);
    await db.close();
    const copies = readdirSync(dir).filter((name) => name.startsWith('heliograph.db.before-upgrade-'));
    assert.equal(copies.length, 1, `one copy: ${readdirSync(dir).join(', ')}`);
    const copy = await openDatabase(join(dir, copies[0]!));
    const ids = (await copy.all<Array<{ id: string }>>('SELECT id FROM migrations')).map((r) => r.id);
    await copy.close();
    assert.deepEqual(ids.sort(), authMigrations.map((m) => m.id).sort(), 'the copy is the file before the upgrade');

    const freshDir = tempDir();
    const fresh = await openCoreDatabase(
      join(freshDir, 'heliograph.db'),
      { migrations: CORE, prepare: prepareSchema },
      systemClock,
    );
    await fresh.db.close();
    assert.deepEqual(
      readdirSync(freshDir).filter((n) => n.includes('before-upgrade')),
      [],
    );
  });

  it('a failing step rolls every step of the upgrade back', async () => {
    const db = await openDatabase(':memory:');
    const steps = [
      { id: 'test:1', sql: 'CREATE TABLE first_step (x INTEGER)' },
      { id: 'test:2', sql: 'CREATE TABLE broken (' },
    ];
    await assert.rejects(migrate(db, steps));
    assert.equal(await db.get("SELECT 1 FROM sqlite_master WHERE name = 'first_step'"), undefined);
    assert.deepEqual(await db.all('SELECT id FROM migrations'), []);
    await db.close();
  });

  it('knows every step the service applies', () => {
    for (const m of [...CORE, ...authMigrations]) assert.ok(KNOWN_MIGRATIONS.includes(m.id), m.id);
  });
});
