// A throwaway npm registry for the tests: verdaccio (installed once into
// the test cache, run on Node 24: it wants Node 22 or later) on 127.0.0.1,
// with its storage in a temporary folder, no uplinks, and a user whose token
// publishes. Stopped when the test process ends.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { after } from 'node:test';
import { tempDir } from '../../support/helpers.mjs';
import { cacheDir, node24 } from '../../openclaw/support/env.mjs';

const VERDACCIO = '6.10.4';

/** Runs a command to completion; throws with its output unless allowFailure. */
export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 300_000, ...opts });
  if (r.status !== 0 && !opts.allowFailure) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** A TCP port free on 127.0.0.1 at the time of the call. */
export function freePort() {
  return new Promise((ok) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

/** verdaccio, installed once into the test cache. */
function verdaccioBin() {
  const dir = path.join(cacheDir, `verdaccio-${VERDACCIO}`);
  const bin = path.join(dir, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  if (!fs.existsSync(path.join(dir, '.installed'))) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    // verdaccio asks for node-fetch by a dist-tag ("cjs") that not every
    // registry mirror carries; that tag is node-fetch 2.
    fs.writeFileSync(path.join(dir, 'package.json'), '{"private":true,"overrides":{"node-fetch":"2.7.0"}}\n');
    run('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', `verdaccio@${VERDACCIO}`]);
    fs.writeFileSync(path.join(dir, '.installed'), VERDACCIO);
  }
  return bin;
}

let server;
after(() => server?.kill('SIGTERM'));

/** Starts the registry; `npmrc` holds its address and the publish token. */
export async function startRegistry() {
  const work = tempDir('osi-registry-');
  const port = await freePort();
  const config = path.join(work, 'config.yaml');
  fs.writeFileSync(config, [
    `storage: ${path.join(work, 'storage')}`,
    'auth:',
    `  htpasswd: { file: ${path.join(work, 'htpasswd')}, max_users: 10 }`,
    'uplinks: {}',
    'packages:',
    "  '**': { access: $all, publish: $authenticated }",
    'max_body_size: 200mb',
    'log: { type: stdout, format: pretty, level: warn }',
    '',
  ].join('\n'));
  server = spawn(node24(), [verdaccioBin(), '--config', config, '--listen', `127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}-/ping`)).ok) break;
    } catch {}
    await new Promise((ok) => setTimeout(ok, 100));
  }
  // A user, and the token npm publishes with.
  const res = await fetch(`${url}-/user/org.couchdb.user:ci`, {
    method: 'PUT', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'ci', password: 'ci-password-1' }),
  });
  const { token } = await res.json();
  assert.ok(token, 'verdaccio gave a token');
  const npmrc = path.join(work, '.npmrc');
  fs.writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  return { url, npmrc };
}

