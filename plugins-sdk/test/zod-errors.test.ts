import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { formatZodError, formatZodIssue } from '../src/index.js';

const schema = z.object({
  site: z.object({ latitude: z.number(), name: z.string().min(1, 'name must not be empty') }),
  watts: z.record(z.string(), z.number()),
});

function errorOf(input: unknown): z.ZodError {
  const result = schema.safeParse(input);
  assert.equal(result.success, false);
  return result.error;
}

describe('formatZodError', () => {
  it('names the source and the exact path of every bad key, with the value it got', () => {
    const input = { site: { latitude: 'north', name: '' }, watts: { '2024-04-26 07:00': 'x' } };
    assert.equal(
      formatZodError(errorOf(input), { source: 'config.json', input }),
      [
        'config.json: site.latitude: expected number, got "north"',
        'config.json: site.name: name must not be empty',
        'config.json: watts["2024-04-26 07:00"]: expected number, got "x"',
      ].join('\n'),
    );
  });

  it('places the path inside a larger document and counts what it leaves out', () => {
    const error = errorOf({ site: { latitude: 'n', name: '' }, watts: { a: 'x' } });
    assert.equal(
      formatZodError(error, {
        source: 'plugins.json',
        pathPrefix: ['plugins', 2, 'config'],
        limit: 1,
        separator: '; ',
      }),
      'plugins.json: plugins[2].config.site.latitude: expected number, received string; and 2 more problems',
    );
  });

  it('gives one line for an API answer, without repeating a path the message already names', () => {
    const topic = z.object({ topic: z.string({ error: 'topic is required and must be a string' }) });
    assert.equal(formatZodIssue(topic.safeParse({}).error!.issues[0]!), 'topic is required and must be a string');
    assert.equal(
      formatZodIssue(errorOf(null).issues[0]!, { rootName: '(whole answer)' }),
      '(whole answer): expected object, received null',
    );
  });
});
