/*
 * One controller per battery. A plugin instance that writes a device's `battery_control_*`
 * settings through `ctx.site.write` (a planner) becomes that battery's controller until it
 * stops or sets it back to normal; another instance's writes to the same battery are refused with a message naming the
 * controller, so two planners cannot rewrite each other's commands. People (REST, WebSocket)
 * and integrations writing for them (the MQTT bridge) are not controllers: their writes go
 * through, and a planner pauses for them. The device's own driver (ending a forced command at
 * its start or stop) is not a controller either.
 */

/** `inverter_1` of `inverter_1/battery_control_mode`, or null for any other topic. */
export function controlledBattery(topic: string): string | null {
  const match = /^([^/]+)\/battery_control_(mode|power|target_soc)$/.exec(topic);
  return match ? match[1]! : null;
}

export class BatteryControllers {
  /** Device id → the instance controlling its battery. */
  private readonly owners = new Map<string, string>();

  /**
   * Takes the battery of `device` for `instance`, or says who has it. Taking a battery one
   * already controls is a no-op.
   */
  claim(device: string, instance: string): { ok: true } | { ok: false; owner: string } {
    const owner = this.owners.get(device);
    if (owner !== undefined && owner !== instance) return { ok: false, owner };
    this.owners.set(device, instance);
    return { ok: true };
  }

  /** `instance` set `device`'s battery back to normal: it is free, if `instance` had it. */
  releaseDevice(device: string, instance: string): void {
    if (this.owners.get(device) === instance) this.owners.delete(device);
  }

  /** The instance stopped: every battery it controlled is free. */
  release(instance: string): void {
    for (const [device, owner] of this.owners) if (owner === instance) this.owners.delete(device);
  }

  /** Whether `instance` controls any battery (the host stops controllers before drivers). */
  controls(instance: string): boolean {
    for (const owner of this.owners.values()) if (owner === instance) return true;
    return false;
  }

  /** The instance controlling `device`'s battery, if any. */
  ownerOf(device: string): string | undefined {
    return this.owners.get(device);
  }
}

/** The refusal a second controller gets. */
export function secondControllerMessage(device: string, owner: string, instance: string): string {
  return `${device}'s battery is already controlled by ${owner}: one controller per battery, so ${instance} may not command it (stop ${owner}, or point ${instance} at another device)`;
}
