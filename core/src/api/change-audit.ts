import type { Clock } from '../clock.js';
import { createLogger } from '../log.js';
import type { AuditLog } from '../writes/audit.js';

const log = createLogger('audit');

/** One accepted change of the device's setup (config, a token, a plugin instance). */
export interface SetupChange {
  /** `admin` for the password, else the token's name. */
  who: string;
  /** `config/<section.key>`, `tokens/<name>` or `plugins/<id>`. */
  topic: string;
  /** Before and after as text; secrets already shown as "***". */
  oldValue: string;
  newValue: string;
}

/** Records setup changes in the audit log next to the metric writes (`via: "rest"`). */
export type RecordChange = (change: SetupChange) => Promise<void>;

/**
 * The audit writer for setup changes. A failed audit write is logged, not answered: the
 * change itself has been made and saved by then, and failing the request would invite the
 * user to make it twice.
 */
export function setupAudit(audit: AuditLog, clock: Clock): RecordChange {
  // AuditLog.add resolves once the entry is on disk (retrying a busy database, never
  // rejecting): the answer to the change waits for its entry, as a write's does.
  return (change) => {
    try {
      return audit.add({
        time: clock.now(),
        who: change.who,
        via: 'rest',
        topic: change.topic,
        oldValue: change.oldValue,
        newValue: change.newValue,
        result: 'ok',
        message: null,
      });
    } catch (err) {
      log.error(`could not audit the change of ${change.topic}`, { err });
      return Promise.resolve();
    }
  };
}

/** A value as the audit log shows it: strings as they are, anything else as JSON. */
export function auditText(value: unknown): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
