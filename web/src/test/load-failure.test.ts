/// <reference types="node" />
// What a screen says when its first load fails: a 404 is a service without that part of the
// API (said in the screen's own words, not as an error), anything else is the error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, loadFailure } from '../api/client.js';

test('a 404 is a service without that part of the API: the screen says so in its own words', () => {
  assert.deepEqual(loadFailure(new ApiError(404, 'not found'), 'load the tokens', 'No tokens here.'), {
    missing: true,
    text: 'No tokens here.',
  });
});

test('any other failure is an error that names what could not be loaded and why', () => {
  assert.deepEqual(loadFailure(new ApiError(500, 'internal error'), 'load the tokens', 'No tokens here.'), {
    missing: false,
    text: 'Cannot load the tokens: internal error',
  });
  assert.deepEqual(loadFailure(new TypeError('Failed to fetch'), 'load the backups', 'No backups here.'), {
    missing: false,
    text: 'Cannot load the backups: TypeError: Failed to fetch',
  });
});
