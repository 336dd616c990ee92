import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/load.js';
import { SettingsLog, settingsLogMigrations } from '../../src/config/settings-log.js';
import { LiveSiteSettings } from '../../src/config/site-settings.js';
import { migrate, openDatabase } from '../../src/db.js';
import { tempDir } from '../helpers/tmp.js';

const T0 = Date.parse('2026-11-20T10:00:00Z');

async function start(dir: string, clock: ManualClock) {
  const file = join(dir, 'config.json');
  const config = loadConfig(file);
  const settings = new LiveSiteSettings(config, file);
  const db = await openDatabase(join(dir, 'heliograph.db'));
  await migrate(db, settingsLogMigrations);
  const log = new SettingsLog(db, clock);
  const stop = await log.start(settings, config);
  return {
    settings,
    log,
    db,
    close: async () => {
      await stop();
      await db.close();
    },
  };
}

test('the values in force are logged at first start, each accepted change at its time, and a restart reads them back', async () => {
  const dir = tempDir('settings-log-');
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ site: { timeZone: 'UTC' }, energy: { resetPeriod: 'weekly' } }),
  );
  const clock = new ManualClock(T0);
  const first = await start(dir, clock);
  assert.deepEqual(first.log.values('site.timeZone'), [{ time: T0, value: 'UTC' }]);
  assert.deepEqual(first.log.values('energy.resetPeriod'), [{ time: T0, value: 'weekly' }]);
  clock.advance(3_600_000);
  first.settings.update({ site: { timeZone: 'Europe/Berlin' }, prices: { multiplier: 2 } });
  clock.advance(3_600_000);
  first.settings.update({ energy: { resetPeriod: 'daily' } });
  // Unchanged values and other keys are not logged.
  first.settings.update({ site: { timeZone: 'Europe/Berlin', latitude: 10 } });
  const zones = [
    { time: T0, value: 'UTC' },
    { time: T0 + 3_600_000, value: 'Europe/Berlin' },
  ];
  const resets = [
    { time: T0, value: 'weekly' },
    { time: T0 + 7_200_000, value: 'daily' },
  ];
  assert.deepEqual(first.log.values('site.timeZone'), zones);
  assert.deepEqual(first.log.values('energy.resetPeriod'), resets);
  // The rules past readings are counted by: those in force at each reading's time, the
  // earliest known before the log began.
  assert.deepEqual(first.log.energyRulesAt(T0 - 86_400_000), { timeZone: 'UTC', period: 'weekly' });
  assert.deepEqual(first.log.energyRulesAt(T0 + 3_600_000 - 1), { timeZone: 'UTC', period: 'weekly' });
  assert.deepEqual(first.log.energyRulesAt(T0 + 3_600_000), { timeZone: 'Europe/Berlin', period: 'weekly' });
  assert.deepEqual(first.log.energyRulesAt(T0 + 7_200_000), { timeZone: 'Europe/Berlin', period: 'daily' });
  await first.close();

  clock.advance(3_600_000);
  const again = await start(dir, clock);
  assert.deepEqual(again.log.values('site.timeZone'), zones, 'read back, nothing new logged at the restart');
  assert.deepEqual(again.log.values('energy.resetPeriod'), resets);
  assert.equal((await again.db.all('SELECT * FROM settings_log')).length, 4);
  await again.close();
});

test('a null zone is logged as the system zone it resolves to', async () => {
  const dir = tempDir('settings-log-');
  const clock = new ManualClock(T0);
  const s = await start(dir, clock);
  assert.equal(s.log.values('site.timeZone')[0]!.value, Intl.DateTimeFormat().resolvedOptions().timeZone);
  await s.close();
});
