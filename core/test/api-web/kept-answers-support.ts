// What the tests of kept history answers share: a real store on a SQLite file, and `answer`,
// which asks once with keeping and once without and checks that both give the same bytes.
import assert from 'node:assert/strict';
import { HistoryAnswers } from '../../src/api/history/answer-cache.js';
import { historyBytes, prepareHistory, type HistoryDeps } from '../../src/api/history/answer.js';
import type { Agg } from '../../src/history/slots.js';
import { TopicRegistry } from '../../src/topics/registry.js';
import { ManualClock, openStore, tempDbFile } from '../history/support.js';

const HOUR = 3_600_000;

/** The store, its registry (topics are defined by the test) and the checked `answer`. */
export async function keptAnswersFixture(t: { after(fn: () => Promise<void>): void }, now: number) {
  const clock = new ManualClock(now);
  const opened = await openStore(tempDbFile(), clock);
  t.after(() => opened.close());
  const registry = new TopicRegistry(clock);
  const answers = new HistoryAnswers(clock);
  const kept: HistoryDeps = { registry, store: opened.store, clock, answers };
  const fresh: HistoryDeps = { registry, store: opened.store, clock };
  const ask = (deps: HistoryDeps, topic: string, from: number, to: number, groupBy: string, agg: Agg) => {
    const group_by = { ms: Number(groupBy.slice(0, -1)) * (groupBy.endsWith('h') ? HOUR : 1000), text: groupBy };
    return historyBytes(prepareHistory(deps, { topic, from, to, group_by, agg }));
  };
  /** The answer with keeping, checked against the same request read afresh. */
  const answer = async (topic: string, from: number, to: number, groupBy = '10s', agg: Agg = 'mean') => {
    const bytes = await ask(kept, topic, from, to, groupBy, agg);
    const read = await ask(fresh, topic, from, to, groupBy, agg);
    assert.ok(bytes.equals(read), `kept ${groupBy} ${agg} answer is what reading gives`);
    return bytes;
  };
  return { clock, opened, registry, answers, answer };
}
