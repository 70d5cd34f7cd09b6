// occ cc slim: slim a Claude Code session's transcript (images, long tool
// results, the CLI's own copies of them) so resuming it re-sends less, or
// undo that with --restore. See docs/api/cleaning.md, "Slimming a Claude
// Code session".

import { UsageError } from './occ-config.mjs';

/** The flags `occ cc slim` reads (besides --json and --dry-run). */
export const SLIM_VALUE_FLAGS = ['--preset', '--title'];
/** Its switches. */
export const SLIM_SWITCHES = ['--fork', '--restore'];

/** Bytes as `1.2 MB`, `34 KB`, `12 B`. */
function size(bytes) {
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}

/** What a slim cut, as lines for a person. */
function slimLines(r) {
  const s = r.stats;
  const head = r.dryRun ? `Dry run (nothing written): ${r.sessionId}`
    : !r.changed ? `✓ Nothing to slim: ${r.sessionId}`
      : r.forkSessionId ? `✓ Slimmed fork written: ${r.sessionId} → ${r.forkSessionId}` : `✓ Session slimmed: ${r.sessionId}`;
  return [
    head,
    `  Size: ${size(r.sizeOriginal)} → ${size(r.sizeAfter)} (${Math.round(r.reductionPercent)}% reduction)`,
    `  Cut: ${s.imagesRemoved} image(s), ${s.toolResultsCut} long tool result(s), ${s.toolUseResultsSlimmed} tool output copies, ${s.linesDropped} progress line(s)`,
    `  Each resumed turn sends about ${r.estimatedInputTokensSaved.toLocaleString('en-US')} fewer input tokens`,
    ...(r.forkSessionId ? [`  Fork: "${r.forkTitle}"${r.forkPath ? ` ${r.forkPath}` : ''} (claude --resume ${r.forkSessionId})`] : []),
    ...(r.backupPath ? [`  Backup: ${r.backupPath} (occ cc slim ${r.sessionId.slice(0, 8)} --restore to undo)`] : []),
    ...(r.appendedLinesKept ? [`  Lines appended meanwhile, kept: ${r.appendedLinesKept}`] : []),
  ];
}

/**
 * `occ cc slim <id> [--preset default|aggressive] [--fork [--title <t>]] [--dry-run] [--restore]`.
 * `rest` are the arguments after `slim`; `print(json, value, human)` writes the result.
 */
export async function ccSlim(addon, rest, flags, print) {
  const [id, ...extra] = rest;
  if (!id) throw new UsageError('cc slim needs a session id', "run 'occ cc sessions' to see the session ids");
  if (extra.length) throw new UsageError(`cc slim takes one session id (got ${rest.join(' ')})`, 'occ cc slim <id> [--dry-run] [--fork] [--restore]');
  if (flags['--restore']) {
    if (flags['--fork'] || flags['--preset'] || flags['--dry-run']) throw new UsageError('--restore takes no other slim option', `occ cc slim ${id} --restore`);
    const r = await addon.restoreClaudeSession(id);
    return print(flags['--json'], r, () => [`✓ Session restored: ${r.sessionId}`, `  From: ${r.restoredFrom}`, `  Slimmed content kept as: ${r.replacedBackup} (run --restore again to undo)`].join('\n'));
  }
  if (flags['--title'] && !flags['--fork']) throw new UsageError('--title names a fork', `occ cc slim ${id} --fork --title "<title>"`);
  const r = await addon.slimClaudeSession(id, {
    preset: flags['--preset'], dryRun: Boolean(flags['--dry-run']), fork: Boolean(flags['--fork']), forkTitle: flags['--title'],
  });
  return print(flags['--json'], r, () => slimLines(r).join('\n'));
}
