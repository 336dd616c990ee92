// A battery command is one write (SDK 1.4): the active planner in the real server, at 03:00
// (the cheapest hour) on the fixture battery that counts the commands its device took. Its
// Charge reaches the device as one write of the mode with the power and target together: one
// audit entry (GET /api/v1/audit) in words, one `apply`; every later write of the planner
// (a renewal, a new command) is again one entry and one apply.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import { pollUntil } from '../helpers/deadline.js';
import { audit, type AuditEntry } from '../drivers/battery-control.js';
import { valuesOf, valuesWhen } from '../drivers/driver-api.js';
import { EVENING_BEFORE, QUARTER, start, step } from './planner-setup.js';

const DEVICE = 'inverter_2';

/** The audit entries of the battery control's three settings, oldest first. */
async function commands(server: Parameters<typeof audit>[0]): Promise<AuditEntry[]> {
  return (await audit(server)).filter((e) => e.topic.startsWith(`${DEVICE}/battery_control_`)).reverse();
}

describe('a battery command is one write', () => {
  test("the planner's Charge is one audit entry and one apply, and so is each later command", async () => {
    const clock = new ManualClock(EVENING_BEFORE + 6 * 3_600_000);
    const server = await start(
      clock,
      { mode: 'active', device: DEVICE },
      { plugins: [{ id: 'refuser', plugin: 'refusing-battery', devices: [DEVICE], config: { refuse: 'none' } }] },
    );
    try {
      const v = await valuesWhen(
        server,
        (x) => x.get(`${DEVICE}/battery_control_mode`) === 'Charge',
        'the planner charging',
      );
      const words = `Charge, ${String(v.get(`${DEVICE}/battery_control_power`))} W, ${String(v.get(`${DEVICE}/battery_control_target_soc`))} %`;
      // The device shows the command once it took it; the audit entry follows it to disk.
      let entries: AuditEntry[] = [];
      await pollUntil(async () => {
        entries = await commands(server);
        return { done: entries.length > 0, seen: entries };
      }, "the planner's command in the audit");
      assert.deepEqual(
        entries.map((e) => [e.topic, e.new_value, e.via, e.result]),
        [[`${DEVICE}/battery_control_mode`, words, 'planner', 'ok']],
        'one audit entry: the mode, with the power and target in words',
      );
      assert.equal(v.get(`${DEVICE}/commands_taken`), 1, 'one apply');

      // Each quarter hour: as many commands taken as the planner's audited writes.
      for (let q = 1; q <= 4; q++) {
        const before = {
          entries: (await commands(server)).length,
          taken: (await valuesOf(server)).get(`${DEVICE}/commands_taken`),
        };
        await step(server, clock, QUARTER, ['refuser']);
        const after = await commands(server);
        const taken = (await valuesOf(server)).get(`${DEVICE}/commands_taken`) as number;
        assert.ok(
          after.every((e) => e.topic === `${DEVICE}/battery_control_mode` && e.result === 'ok'),
          `only the mode is written: ${after.map((e) => `${e.topic}=${e.new_value}`).join('; ')}`,
        );
        assert.equal(
          taken - (before.taken as number),
          after.length - before.entries,
          `quarter hour ${q}: one apply per audited write (${after
            .slice(before.entries)
            .map((e) => e.new_value)
            .join('; ')})`,
        );
      }
    } finally {
      await server.close();
    }
  });
});
