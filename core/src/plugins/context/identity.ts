import type { DeviceIdentity, Disposer } from '@heliograph/plugins-sdk';
import { deviceFields } from '../../topics/device.js';
import type { TopicRegistry, TopicState } from '../../topics/registry.js';

/** The Info row of each identity field: name under the device prefix and display name. */
const ROWS: Record<keyof DeviceIdentity, { name: string; displayName: string }> = {
  manufacturer: { name: 'manufacturer', displayName: 'Manufacturer' },
  model: { name: 'model', displayName: 'Model' },
  serial: { name: 'serial_number', displayName: 'Serial number' },
  firmware: { name: 'firmware_version', displayName: 'Firmware version' },
  parent: { name: 'parent_device', displayName: 'Connected via' },
};

interface DeviceRows {
  identity: DeviceIdentity;
  /** The device's declared topics by name: a plugin that declared `model` itself keeps it. */
  declared: ReadonlyMap<string, TopicState>;
  undo: Disposer[];
}

/**
 * A device's identity (manufacturer, model, serial, firmware) as Info rows: defined when a
 * field is first known, never nulled by staleness or unavailability, never recorded.
 */
export class IdentityRows {
  private readonly devices = new Map<string, DeviceRows>();

  constructor(private readonly registry: TopicRegistry) {}

  /** Starts a declared device's rows; the disposer removes them. */
  attach(deviceId: string, declared: ReadonlyMap<string, TopicState>): Disposer {
    const rows: DeviceRows = { identity: {}, declared, undo: [] };
    this.devices.set(deviceId, rows);
    return () => {
      if (this.devices.get(deviceId) === rows) this.devices.delete(deviceId);
      for (const undo of rows.undo.splice(0).reverse()) undo();
    };
  }

  /** Merges `identity` into the device's, and shows each field given. */
  set(deviceId: string, identity: DeviceIdentity): void {
    const rows = this.devices.get(deviceId);
    if (!rows) throw new Error(`identify for device "${deviceId}" before declaring it`);
    for (const key of Object.keys(ROWS) as Array<keyof DeviceIdentity>) {
      const value = identity[key];
      if (value === undefined) continue;
      if (typeof value !== 'string') throw new Error(`identity.${key} of ${deviceId} must be a string`);
      rows.identity[key] = value;
      const { name, displayName } = ROWS[key];
      const topic = `${deviceId}/${name}`;
      let state = rows.declared.get(name) ?? this.registry.get(topic);
      if (!state) {
        rows.undo.push(
          this.registry.define({
            topic,
            deviceId,
            ...deviceFields(deviceId),
            group: 'Info',
            name: displayName,
            unit: '',
            type: 'string',
            recorded: false,
            identity: true,
          }),
        );
        state = this.registry.get(topic)!;
      }
      this.registry.publish(state, value);
    }
  }

  /** What the device said it is so far. */
  of(deviceId: string): DeviceIdentity {
    return { ...this.devices.get(deviceId)?.identity };
  }
}
