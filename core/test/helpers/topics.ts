import type { TopicMeta } from '../../src/topics/registry.js';
import { deviceFields } from '../../src/topics/device.js';

/** A recorded power reading's meta for `topic` (device fields from its prefix), with `extra` over it. */
export function topicMeta(topic: string, extra: Partial<TopicMeta> = {}): TopicMeta {
  const deviceId = topic.split('/')[0]!;
  return {
    topic,
    deviceId,
    ...deviceFields(deviceId),
    group: 'Status',
    name: topic,
    unit: 'W',
    type: 'number',
    recorded: true,
    ...extra,
  };
}
