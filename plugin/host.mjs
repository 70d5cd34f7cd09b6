// @ts-check
// What every part of the plugin uses from its host process: the native
// addon (loaded on first use, never while OpenClaw only reads metadata),
// OpenClaw's state dir as the gateway's service was given it, the `occ`
// child process, and the coded errors both report.
//
// Anything that may open the agent's SQLite transcript store runs in a
// child `occ` process: the gateway has that database open with its own
// SQLite, and a second SQLite library in one process would drop the
// gateway's POSIX locks on it when it closed the file.

import { execFile, spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** @typedef {import('openclaw/plugin-sdk/plugin-entry').OpenClawPluginApi} Api */
/** @typedef {{ code: string, message: string, hint: string | null }} CodedError */

/** The plugin's id: its manifest's, and the prefix of its log lines. */
export const PLUGIN_ID = 'openclaw-session-intel';

/** `bin/occ.mjs` beside the plugin, run with the gateway's Node. */
const OCC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'occ.mjs');

/** @type {typeof import('../index.js') | undefined} */
let loaded;
/** The addon, loaded on first use (never while OpenClaw only reads metadata). */
export const addon = () => (loaded ??= createRequire(import.meta.url)('../entry.js'));

/** OpenClaw's state dir as the gateway's service was given it, once started. @type {string | undefined} */
let serviceStateDir;
/** Keeps the state dir the gateway's service was started with. @param {string | undefined} dir */
export const useServiceStateDir = (dir) => {
  serviceStateDir = dir;
};
/** OpenClaw's state dir: the service's, else `$OPENCLAW_STATE_DIR`; absent: the addon resolves OpenClaw's default. */
export const stateDir = () => serviceStateDir ?? process.env.OPENCLAW_STATE_DIR ?? undefined;
/** OpenClaw's state dir, with OpenClaw's default folder when none is set, for paths the plugin builds itself. */
export const stateRoot = () => stateDir() ?? path.join(os.homedir(), '.openclaw');

/**
 * Any thrown value as a coded error: the addon's code and hint when it has
 * them, else `E_INTERNAL`.
 * @param {unknown} e
 * @returns {CodedError}
 */
export function coded(e) {
  const err = /** @type {{ code?: unknown, message?: unknown, hint?: unknown }} */ (e ?? {});
  return {
    code: typeof err.code === 'string' && err.code.startsWith('E_') ? err.code : 'E_INTERNAL',
    message: typeof err.message === 'string' ? err.message : String(e),
    hint: typeof err.hint === 'string' ? err.hint : null,
  };
}

/** A coded error as one message for a person: the message, then its hint. @param {CodedError} error */
export const describe = (error) => `${error.message}${error.hint ? `\nHint: ${error.hint}` : ''}`;

/**
 * Runs `occ <args> --json` with this Node and the addon beside this plugin.
 * @param {string[]} args
 * @returns {Promise<{ ok: true, value: any } | { ok: false, error: CodedError }>}
 */
export function occ(args) {
  const dir = stateDir();
  const argv = [OCC, ...args, '--json', ...(dir ? ['--state-dir', dir] : [])];
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { timeout: 120_000, maxBuffer: 256 * 2 ** 20, windowsHide: true }, (err, stdout, stderr) => {
      if (!err) {
        try {
          return resolve({ ok: true, value: JSON.parse(stdout) });
        } catch {
          return resolve({ ok: false, error: { code: 'E_INTERNAL', message: `occ printed no JSON: ${stdout.slice(0, 200)}`, hint: null } });
        }
      }
      const last = stderr.trim().split('\n').pop() ?? '';
      try {
        const { error } = JSON.parse(last);
        if (error?.code) return resolve({ ok: false, error });
      } catch {}
      resolve({ ok: false, error: { code: 'E_INTERNAL', message: `occ failed (${err.killed ? 'timed out' : `exit ${err.code}`}): ${stderr.trim().slice(0, 500)}`, hint: null } });
    });
  });
}

/**
 * Runs `occ <args>` on the terminal of the current process (for
 * `openclaw occ`); resolves to its exit code.
 * @param {string[]} args
 * @returns {Promise<number>}
 */
export function occOnTerminal(args) {
  const child = spawn(process.execPath, [OCC, ...args], { stdio: 'inherit', windowsHide: true });
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
}
