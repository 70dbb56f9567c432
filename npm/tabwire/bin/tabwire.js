#!/usr/bin/env node
// `tabwire` from npm: runs the native tabwire binary that npm installed for this
// platform (the package @tabwire/<os>-<cpu>, an optional dependency of this one) with
// the same arguments.
//
// The binary inherits this process's stdin, stdout and stderr, so an MCP session over
// stdio reaches it byte for byte; signals sent to this process are passed on to it, and
// this process ends as the binary does (same exit code, or same signal). When no
// binary matches the machine, it says which platforms this release has and how to
// build tabwire from source. Plain CommonJS without dependencies.
'use strict';

const { spawn } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const { PLATFORMS, platformName, packageName, binaryPath } = require('../lib/platforms.js');
const launcher = require('../package.json');

/** Set to a tabwire binary's path to run that one instead (a build from source). */
const BINARY_ENV = 'TABWIRE_BINARY';

function fail(message) {
  process.stderr.write(`tabwire: ${message}\n`);
  process.exit(1);
}

/** The platforms whose packages were released with this launcher. */
function releasedPlatforms() {
  const packages = Object.keys(launcher.optionalDependencies || {});
  return PLATFORMS.filter((p) => packages.includes(packageName(p)));
}

function buildFromSource() {
  return (
    'To build tabwire from source instead: with Rust installed (https://rustup.rs), run\n' +
    '  scripts/build --release\n' +
    'in a tabwire source checkout, and put its target/release/tabwire in your agent\'s MCP\n' +
    `settings (\`<path>/tabwire mcp\`), or set ${BINARY_ENV}=<that path> to run it through this command.`
  );
}

/** The binary to run, or a message saying why there is none. */
function findBinary() {
  if (process.env[BINARY_ENV]) return { binary: process.env[BINARY_ENV] };

  const here = `${process.platform}-${process.arch}`;
  const released = releasedPlatforms();
  const releasedList = released.map(platformName).join(', ') || 'none';
  const platform = PLATFORMS.find((p) => p.os === process.platform && p.cpu === process.arch);
  if (!platform || !released.includes(platform)) {
    return {
      error:
        `tabwire ${launcher.version} has no binary for ${here}; ` +
        `this release has binaries for: ${releasedList}.\n${buildFromSource()}`,
    };
  }

  const name = packageName(platform);
  let packageJson;
  try {
    packageJson = require.resolve(`${name}/package.json`);
  } catch {
    const reasons = [
      'optional dependencies are left out (--omit=optional, --no-optional)',
      'a lockfile made on another platform is used',
      ...(platform.libc ? [`the C library is not ${platform.libc}`] : []),
    ];
    return {
      error:
        `the binary for ${here} is missing: its package, ${name}, is not installed.\n` +
        `npm installs it with tabwire, except when ${reasons.slice(0, -1).join(', when ')}` +
        `, or when ${reasons[reasons.length - 1]}. ` +
        `Reinstall tabwire without those, or install ${name}@${launcher.version} beside it.\n` +
        buildFromSource(),
    };
  }

  const { version } = require(packageJson);
  if (version !== launcher.version) {
    process.stderr.write(
      `tabwire: warning: ${name} is version ${version} but tabwire is ${launcher.version}; ` +
        'reinstall tabwire so that they match.\n',
    );
  }
  return { binary: path.join(path.dirname(packageJson), binaryPath(platform)) };
}

// The signals passed on to the binary. On Windows the console delivers Ctrl+C and
// Ctrl+Break to every process attached to it, the binary included: only keep them from
// ending this process before the binary does.
const FORWARDED =
  process.platform === 'win32' ? ['SIGINT', 'SIGBREAK'] : ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];

function run() {
  const found = findBinary();
  if (found.error) fail(found.error);

  const child = spawn(found.binary, process.argv.slice(2), { stdio: 'inherit', windowsHide: true });

  const forward = (signal) => {
    if (process.platform !== 'win32' && child.pid !== undefined) child.kill(signal);
  };
  for (const signal of FORWARDED) process.on(signal, forward);

  child.on('error', (err) => {
    const why =
      err.code === 'ENOENT'
        ? 'it does not exist'
        : err.code === 'EACCES'
          ? 'it is not executable'
          : err.message;
    fail(`cannot run ${found.binary}: ${why}. Reinstall tabwire, or set ${BINARY_ENV} to a working binary.`);
  });

  child.on('exit', (code, signal) => {
    if (signal) {
      // End by the same signal, so that whoever started us sees how the binary ended.
      for (const s of FORWARDED) process.removeListener(s, forward);
      process.kill(process.pid, signal);
      // Signals Node ignores (SIGPIPE) come back here: exit as a shell reports them.
      process.exit(128 + (os.constants.signals[signal] || 0));
    }
    process.exit(code === null ? 1 : code);
  });
}

run();
