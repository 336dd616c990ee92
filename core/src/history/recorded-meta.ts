import { ApiError } from '../contract/api-error.js';
import type { TopicRegistry } from '../topics/registry.js';
import type { HistoryStore } from './store.js';
import { BATTERY_TOPIC, isRecorded, type StoredMeta } from './topic-record.js';

/**
 * What history knows of `topic`: the registry's declaration for a topic that exists now,
 * else the stored one. Throws the API's 404 when it is not recorded or not known.
 */
export function recordedMeta(
  registry: TopicRegistry,
  store: Pick<HistoryStore, 'describe'>,
  topic: string,
): StoredMeta {
  const state = registry.get(topic);
  if (state) {
    if (isRecorded(state.meta)) return state.meta;
    const why = BATTERY_TOPIC.test(topic)
      ? 'battery metrics are not recorded'
      : state.meta.type !== 'number'
        ? `its values are ${state.meta.type === 'string' ? 'text' : 'on/off'}, not numbers`
        : 'its plugin declares it as not recorded';
    throw new ApiError('HISTORY_NOT_RECORDED', `${topic} is not recorded in history: ${why}`);
  }
  if (BATTERY_TOPIC.test(topic))
    throw new ApiError('HISTORY_NOT_RECORDED', `${topic} is not recorded in history: battery metrics are not recorded`);
  const stored = store.describe(topic);
  if (!stored)
    throw new ApiError(
      'TOPIC_UNKNOWN',
      `unknown topic "${topic}": no metric has this topic and no history is kept for it (GET /api/v1/metrics lists the topics)`,
    );
  return stored;
}
