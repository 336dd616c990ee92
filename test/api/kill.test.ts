// The kill -9 campaign (test/chaos/campaign.ts) in small: a few SIGKILLs of the real server
// and import while they record, backfill, take writes and import, then exact counts.
// `npm run chaos` runs the same with 100 kills.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCampaign } from '../chaos/campaign.js';
import { tempDir } from '../helpers/server.js';

test(
  'killed with SIGKILL at random points, the database always opens, totals never go back, and nothing is doubled',
  { timeout: 120_000 },
  async (t) => {
    let a = 20261122;
    const random = () => {
      a = (a * 1103515245 + 12345) % 2147483648;
      return a / 2147483648;
    };
    const result = await runCampaign({
      dir: tempDir('heliograph-kill-'),
      kills: 6,
      random,
      importReadings: 30_000,
      log: (line) => t.diagnostic(line),
    });
    assert.ok(
      result.serveKills > 0 && result.importKills > 0,
      `both kinds of kill happened (${result.serveKills} serve, ${result.importKills} import)`,
    );
    assert.deepEqual(
      result.imported,
      {
        count: 30_000,
        sum: result.imported.expectedSum,
        expectedCount: 30_000,
        expectedSum: result.imported.expectedSum,
      },
      'every imported reading once',
    );
    assert.ok(result.backfillHours >= 23, `the backfill covered the day (${result.backfillHours} hours)`);
    assert.deepEqual(result.badBackfillHours, [], 'every backfilled hour holds 360 readings, one per slot');
  },
);
