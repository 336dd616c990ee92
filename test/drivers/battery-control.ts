/*
 * What the battery-control driver tests share: commands written through POST /api/v1/metrics
 * (the API's write path), and the audit entries they leave.
 */
import assert from 'node:assert/strict';
import type { BatteryCommand } from '@heliograph/plugins-sdk';
import { pollUntil } from '../helpers/deadline.js';
import type { TestServer } from '../helpers/server.js';
import { write } from './driver-api.js';

export interface AuditEntry {
  topic: string;
  new_value: string;
  result: 'ok' | 'error';
  message: string | null;
  via: string;
  who: string;
}

const LABELS = { normal: 'Normal', hold: 'Hold', charge: 'Charge', discharge: 'Discharge' } as const;

/** Writes power, target and then the mode, each through the API; every write must be accepted. */
export async function command(server: TestServer, device: string, command: BatteryCommand): Promise<void> {
  for (const [name, value] of [
    ['battery_control_power', String(command.powerW)],
    ['battery_control_target_soc', String(command.targetSoc)],
    ['battery_control_mode', LABELS[command.mode]],
  ] as const) {
    const answer = await write(server, `${device}/${name}`, value);
    assert.equal(answer.status, 200, `${device}/${name} = ${value}: ${answer.body}`);
  }
}

/** GET /api/v1/audit, newest first. */
export async function audit(server: TestServer): Promise<AuditEntry[]> {
  return (await (await server.api('/api/v1/audit?limit=1000')).json()) as AuditEntry[];
}

/**
 * The newest audit entry for `topic`, waiting for the first one: a write the test did not make
 * itself (a driver ending a forced command at its start) is audited just after the device took
 * it, so the device can show it before the audit does.
 */
export async function lastAudited(server: TestServer, topic: string): Promise<AuditEntry> {
  let entry: AuditEntry | undefined;
  await pollUntil(async () => {
    entry = (await audit(server)).find((e) => e.topic === topic);
    return { done: entry !== undefined };
  }, `an audit entry for ${topic}`);
  return entry!;
}

/** The limits every driver enforces: power above the mode's limit and a target below the minimum SOC are refused, audited as errors. */
export async function assertLimitsEnforced(
  server: TestServer,
  device: string,
  limits: { maxChargeW: number; minSoc: number },
): Promise<void> {
  const low = await write(server, `${device}/battery_control_target_soc`, String(limits.minSoc - 1));
  assert.equal(low.status, 422, low.body);
  const lowEntry = await lastAudited(server, `${device}/battery_control_target_soc`);
  assert.equal(lowEntry.result, 'error');
  assert.equal(lowEntry.new_value, String(limits.minSoc - 1));

  const power = await write(server, `${device}/battery_control_power`, String(limits.maxChargeW + 1));
  if (power.status === 200) {
    // Within the setting's range (the discharge limit is higher): refused once charging is asked for.
    const charge = await write(server, `${device}/battery_control_mode`, 'Charge');
    assert.equal(charge.status, 422, charge.body);
    assert.match(charge.body, /above the battery's max charge power/);
    assert.equal((await lastAudited(server, `${device}/battery_control_mode`)).result, 'error');
  } else {
    assert.equal(power.status, 422, power.body);
    assert.equal((await lastAudited(server, `${device}/battery_control_power`)).result, 'error');
  }
}
