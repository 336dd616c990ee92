/** The backups' services in a server's container (the composition root calls this). */
import type { DependencyContainer, InjectionToken } from '../container/di.js';
import { instanceCachingFactory } from '../container/di.js';
import { CLOCK, CONFIG, CONFIG_FILE, DATA_DIR, PLUGINS_FILE } from '../container/tokens.js';
import { Backups } from './backups.js';
import { RestartRequest } from './restart.js';
import type { RestoreOutcome } from './restore.js';
import { RestoreStaging } from './stage.js';

/** What this start did with a restore staged from the page (restore.ts), when there was one. */
export const LAST_RESTORE: InjectionToken<{ outcome?: RestoreOutcome }> = Symbol('LastRestore');

export function registerBackupServices(di: DependencyContainer, restored: RestoreOutcome | undefined): void {
  di.register(LAST_RESTORE, { useValue: { outcome: restored } });
  di.register(RestartRequest, { useFactory: instanceCachingFactory(() => new RestartRequest()) });
  // One for the upload's route and the list's: one restore is checked at a time.
  di.register(RestoreStaging, {
    useFactory: instanceCachingFactory(
      (c) => new RestoreStaging({ dataDir: c.resolve(DATA_DIR), restart: c.resolve(RestartRequest) }),
    ),
  });
  di.register(Backups, {
    useFactory: instanceCachingFactory(
      (c) =>
        new Backups({
          config: c.resolve(CONFIG),
          configFile: c.resolve(CONFIG_FILE),
          dataDir: c.resolve(DATA_DIR),
          pluginsFile: c.resolve(PLUGINS_FILE),
          clock: c.resolve(CLOCK),
        }),
    ),
  });
}
