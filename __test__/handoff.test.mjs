// Session handoff through the addon: pattern detection.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addon } from './helpers.mjs';

test('detectPatterns: types, confidence and the sentence; chatter gives nothing', () => {
  assert.deepEqual(addon.detectPatterns('Turns out the cron ran in UTC. Fixed the schedule, all tests pass.'), [
    { type: 'insight', confidence: 0.9, content: 'Turns out the cron ran in UTC.' },
    { type: 'accomplishment', confidence: 0.9, content: 'Fixed the schedule, all tests pass.' },
  ]);
  assert.deepEqual(addon.detectPatterns('Still stuck on the OAuth callback?'), [{ type: 'blocker', confidence: 0.6, content: 'Still stuck on the OAuth callback?' }]);
  assert.deepEqual(addon.detectPatterns('thanks, cool'), []);
});
