import { scopeAllows, scopeMessage } from '../../auth/scopes.js';
import { createLogger, errorMessage } from '../../log.js';
import { capText } from '../../writes/audit.js';
import type { WriteOutcome, WriteService } from '../../writes/service.js';
import type { Client } from './client.js';
import {
  CHANNEL,
  joinPayload,
  payloadError,
  setPayload,
  topicsPayload,
  type FilterEntry,
  type InboundFrame,
  type ReplyTarget,
} from './protocol.js';
import { DEFAULT_FILTER, type Selection } from './selection.js';

const log = createLogger('websocket');

/**
 * What a frame may ask of the hub (hub.ts's MetricsHub is the one): stated here so that the
 * channel's logic does not import the hub that calls it.
 */
export interface ChannelHub {
  readonly options: { readonly writes: WriteService };
  join(client: Client, target: ReplyTarget, entries: readonly FilterEntry[]): void;
  replaceFilter(client: Client, target: ReplyTarget, entries: readonly FilterEntry[]): void;
  unjoin(client: Client): void;
  reply(client: Client, target: ReplyTarget, status: 'ok' | 'error', response: Record<string, unknown>): void;
  push(client: Client, event: string, payloadJson: string): void;
  filterProblem(entries: readonly FilterEntry[], replacing: Selection<Client> | null): string | undefined;
}

/** What one inbound frame asks for: heartbeat, join/leave, a filter change or a write. */
export function handleFrame(hub: ChannelHub, client: Client, frame: InboundFrame): void {
  const target: ReplyTarget = { joinRef: frame.joinRef, ref: frame.ref, topic: frame.topic };
  const error = (reason: string) => {
    if (frame.ref !== null) hub.reply(client, target, 'error', { reason });
  };

  if (frame.topic === 'phoenix') {
    if (frame.event === 'heartbeat') hub.reply(client, target, 'ok', {});
    else error(`unknown event "${frame.event}" on topic phoenix; only heartbeat is known`);
    return;
  }
  if (frame.topic !== CHANNEL) {
    // Phoenix's own answer to a topic without a channel; clients know it.
    error('unmatched topic');
    return;
  }

  switch (frame.event) {
    case 'phx_join':
    case 'join': {
      const parsed = joinPayload.safeParse(frame.payload ?? {});
      if (!parsed.success) return error(payloadError(parsed.error));
      const topics = parsed.data.topics;
      const filter = topics && topics.length > 0 ? topics : DEFAULT_FILTER;
      // The default filter is always let in: it is one shared selection, whoever spent the budget.
      const problem = filter === DEFAULT_FILTER ? undefined : hub.filterProblem(filter, client.selection);
      if (problem) return error(problem);
      hub.join(client, target, filter);
      return;
    }
    case 'phx_leave':
    case 'leave':
      hub.unjoin(client);
      hub.reply(client, target, 'ok', {});
      return;
  }

  if (!client.selection)
    return error(`not joined: join topic ${CHANNEL} (event phx_join) before sending "${frame.event}"`);

  switch (frame.event) {
    case 'topics': {
      const parsed = topicsPayload.safeParse(frame.payload);
      if (!parsed.success) return error(payloadError(parsed.error));
      const problem = hub.filterProblem(parsed.data.topics, client.selection);
      if (problem) return error(problem);
      hub.replaceFilter(client, target, parsed.data.topics);
      return;
    }
    case 'set': {
      if (!scopeAllows(client.identity.scope, 'write')) return error(scopeMessage(client.identity, 'write', 'set'));
      const parsed = setPayload.safeParse(frame.payload);
      if (!parsed.success) return error(payloadError(parsed.error));
      hub.reply(client, target, 'ok', {});
      void write(hub, client, parsed.data.topic, String(parsed.data.value));
      return;
    }
    default:
      error(`unknown event "${frame.event}" on topic ${CHANNEL}; known events: phx_join, phx_leave, topics, set`);
  }
}

/** Writes like POST /api/v1/metrics, then tells the sender alone how it went (`set_result`). */
async function write(hub: ChannelHub, client: Client, topic: string, value: string): Promise<void> {
  let outcome: WriteOutcome;
  try {
    outcome = await hub.options.writes.write({ topic, value, who: client.who, via: 'ws' });
  } catch (err) {
    log.error(`write to ${topic} failed`, { who: client.who, err: errorMessage(err) });
    outcome = { ok: false, message: 'the write could not be completed (internal error); see the server log' };
  }
  // A refused topic is echoed cut to the audit's length: a client sending 30 KB topics must
  // not get 30 KB back per frame (its own send queue would fill and close it).
  const shown = outcome.ok ? topic : capText(topic);
  const result = outcome.ok ? { topic, result: 'ok' } : { topic: shown, result: 'error', message: outcome.message };
  hub.push(client, 'set_result', JSON.stringify(result));
}
