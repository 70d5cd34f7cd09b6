'use strict'
// The package's entry point: the loader napi-rs generates (index.js), which
// finds this platform's prebuilt binary (./openclaw-session-intel.<platform>.node
// beside it, or the openclaw-session-intel-<platform> package npm installed
// as an optional dependency), and when there is none, an error that says
// which platform this is, which ones are supported, and what to do.

const { version } = require('./package.json')

/** Platforms with a prebuilt binary (napi.targets in package.json). */
const SUPPORTED = [
  'darwin-arm64',
  'darwin-x64',
  'linux-x64-gnu',
  'linux-arm64-gnu',
  'linux-x64-musl',
  'linux-arm64-musl',
  'win32-x64-msvc',
  'win32-arm64-msvc',
]

/** This process's platform in napi-rs's naming. */
function platform() {
  const { platform: os, arch } = process
  if (os === 'win32') return `win32-${arch}-msvc`
  if (os === 'linux') {
    const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null
    const glibc = Boolean(report?.header?.glibcVersionRuntime)
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`
  }
  return `${os}-${arch}`
}

function unavailable(cause) {
  const here = platform()
  const pkg = `openclaw-session-intel-${here}`
  const supported = SUPPORTED.includes(here)
  const error = new Error(
    supported
      ? `openclaw-session-intel could not load its binary for ${here}: the optional package ${pkg}@${version} is missing or does not load.\n` +
          `Fix: install it (npm install ${pkg}@${version}), or reinstall openclaw-session-intel without --omit=optional / --no-optional ` +
          '(npm sometimes skips optional packages when a lockfile was made on another platform: delete node_modules and package-lock.json, then npm install).'
      : `openclaw-session-intel has no prebuilt binary for ${here} (Node ${process.version}).\n` +
          `Supported platforms: ${SUPPORTED.join(', ')}.\n` +
          'Fix: run on one of those, or build from source (Rust 1.88+: npm run build in a clone of the repository), ' +
          'then point NAPI_RS_NATIVE_LIBRARY_PATH at the built .node file.',
  )
  error.code = 'E_BINARY_UNAVAILABLE'
  error.platform = here
  error.supported = SUPPORTED
  error.cause = cause
  return error
}

try {
  module.exports = require('./index.js')
} catch (cause) {
  throw unavailable(cause)
}

const binding = module.exports

/** The `Date` fields of a discovered session (milliseconds in the JSON). */
const SESSION_DATES = ['lastModified', 'firstActivity', 'lastActivity']

/**
 * `discoverSessions`, fetched as JSON text: V8 parses 150 sessions in about
 * a third of the time Node-API takes to build them as objects, which is most
 * of a repeat call. Same arguments, errors (thrown or rejected alike) and
 * result, key order included; it replaces the binding's own export so that
 * every caller of the package gets it.
 */
/** Makes the `Date` fields of sessions parsed from JSON `Date`s, in place. */
function withDates(sessions) {
  for (const session of sessions) {
    for (const key of SESSION_DATES) {
      if (key in session) session[key] = new Date(session[key])
    }
  }
  return sessions
}

binding.discoverSessions = function discoverSessions(repoPath, options) {
  return binding.discoverSessionsJson(repoPath, options).then((json) => withDates(JSON.parse(json)))
}

/**
 * `hostSessionsPage`, with the sessions' times as `Date`s like
 * `discoverSessions` gives them (the binding's own, like the JSON a node
 * command answers, gives milliseconds).
 */
const hostSessionsPageMs = binding.hostSessionsPage
binding.hostSessionsPage = function hostSessionsPage(request) {
  return hostSessionsPageMs(request).then((page) => {
    withDates(page.sessions)
    return page
  })
}

/**
 * `remoteWorkBriefing`, taking a session's `lastModified` as a `Date` too
 * (the binding reads milliseconds or an ISO string).
 */
const remoteWorkBriefingRaw = binding.remoteWorkBriefing
binding.remoteWorkBriefing = function remoteWorkBriefing(task, hosts, options) {
  const asMs = (host) => ({
    ...host,
    sessions: Array.isArray(host?.sessions)
      ? host.sessions.map((s) => (s?.lastModified instanceof Date ? { ...s, lastModified: s.lastModified.getTime() } : s))
      : host?.sessions,
  })
  return remoteWorkBriefingRaw(task, Array.isArray(hosts) ? hosts.map(asMs) : hosts, options)
}
