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
