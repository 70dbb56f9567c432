// The platforms tabwire's npm packages know: one package per platform, holding the
// `tabwire` binary built for that Rust target. The launcher (bin/tabwire.js) picks the
// entry matching the machine it runs on; scripts/release (through npm/stage.js) names,
// describes and fills the platform packages from the same entries.
//
// A platform listed here has a package only in releases made where its target could be
// built: the launcher's own package.json lists those under `optionalDependencies`.
'use strict';

/** `os` and `cpu` are Node's `process.platform` and `process.arch`, and npm's fields. */
const PLATFORMS = [
  { os: 'linux', cpu: 'x64', target: 'x86_64-unknown-linux-gnu', libc: 'glibc' },
  { os: 'linux', cpu: 'arm64', target: 'aarch64-unknown-linux-gnu', libc: 'glibc' },
  { os: 'darwin', cpu: 'x64', target: 'x86_64-apple-darwin' },
  { os: 'darwin', cpu: 'arm64', target: 'aarch64-apple-darwin' },
  { os: 'win32', cpu: 'x64', target: 'x86_64-pc-windows-gnu' },
];

/** How users and messages name a platform: `linux-x64`. */
function platformName(platform) {
  return `${platform.os}-${platform.cpu}`;
}

/** The npm package carrying the platform's binary: `@tabwire/linux-x64`. */
function packageName(platform) {
  return `@tabwire/${platformName(platform)}`;
}

/** The binary's path inside its package. */
function binaryPath(platform) {
  return platform.os === 'win32' ? 'bin/tabwire.exe' : 'bin/tabwire';
}

module.exports = { PLATFORMS, platformName, packageName, binaryPath };
