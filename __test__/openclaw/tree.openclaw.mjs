// The tree scenarios the addon's active path is tested against
// (fixtures/openclaw-tree-scenarios.json) are what OpenClaw's own tree scan
// builds, in every release the tests run: regenerated here and compared.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { root, tempDir } from '../support/helpers.mjs';
import { OPENCLAW, openclaw, openclawEnv, runNode24 } from './support/env.mjs';

const committed = JSON.parse(fs.readFileSync(path.join(root, 'fixtures', 'openclaw-tree-scenarios.json'), 'utf8'));

for (const version of Object.keys(OPENCLAW)) {
  test(`OpenClaw ${version} builds the committed active path of every tree scenario`, { timeout: 600_000 }, () => {
    const out = path.join(tempDir('osi-tree-'), 'tree.json');
    runNode24([path.join(root, '__test__', 'openclaw', 'support', 'tree-scenarios.mjs'), openclaw(version), out], { env: openclawEnv(tempDir('osi-tree-state-'), tempDir('osi-tree-home-')) });
    const fresh = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.deepEqual(Object.keys(fresh.scenarios), Object.keys(committed.scenarios));
    for (const [name, s] of Object.entries(committed.scenarios)) {
      assert.deepEqual(fresh.scenarios[name].entries, s.entries, `${name}: same input`);
      assert.deepEqual(fresh.scenarios[name].path, s.path, `${name}: OpenClaw ${version}'s path`);
    }
  });
}
