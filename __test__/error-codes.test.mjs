// The binding's exported `ErrorCode` enum lists exactly the core's codes:
// every `ErrorCode` variant of crates/core (read from `ErrorCode::as_str`,
// whose match the compiler keeps exhaustive) under the same name and with
// the same `E_…` string, and nothing else.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addon, root } from './support/helpers.mjs';

/** The core's codes, `{ Variant: 'E_…' }`, from `ErrorCode::as_str`. */
function coreCodes() {
  const source = fs.readFileSync(path.join(root, 'crates', 'core', 'src', 'error.rs'), 'utf8');
  const body = source.match(/pub fn as_str\(self\) -> &'static str \{\s*match self \{([^}]*)\}/);
  assert.ok(body, 'ErrorCode::as_str not found in crates/core/src/error.rs');
  const codes = {};
  for (const [, variant, code] of body[1].matchAll(/ErrorCode::(\w+)\s*=>\s*"(E_[A-Z_]+)"/g)) {
    codes[variant] = code;
  }
  return codes;
}

test("the binding's ErrorCode equals the core's list, names and strings", () => {
  const core = coreCodes();
  assert.ok(Object.keys(core).length >= 15, `only ${Object.keys(core).length} codes read from the core`);
  assert.deepEqual({ ...addon.ErrorCode }, core);
});

test("the core's ErrorCode::ALL lists every code of as_str, in the same order", () => {
  const source = fs.readFileSync(path.join(root, 'crates', 'core', 'src', 'error.rs'), 'utf8');
  const all = source.match(/pub const ALL: \[ErrorCode; \d+\] = \[([^\]]*)\]/);
  assert.ok(all, 'ErrorCode::ALL not found in crates/core/src/error.rs');
  const listed = [...all[1].matchAll(/ErrorCode::(\w+)/g)].map((m) => m[1]);
  assert.deepEqual(listed, Object.keys(coreCodes()));
});
