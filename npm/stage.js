// Lays out tabwire's npm packages in folders ready for `npm pack` (scripts/release runs
// it; nothing here publishes):
//
//   node npm/stage.js launcher <dir> <version> <target>...
//       the `tabwire` package from the npm/tabwire template: its version set, and one
//       optional dependency per platform package of this release (the targets given).
//   node npm/stage.js platform <dir> <version> <target> <binary>
//       the platform package for a Rust target (`@tabwire/linux-x64`): package.json
//       with npm's `os`/`cpu` (and `libc`) fields, so npm installs only the one that
//       matches, and the binary under bin/.
//
// Both get the repository's LICENSE. The platform table is npm/tabwire/lib/platforms.js.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { PLATFORMS, platformName, packageName, binaryPath } = require('./tabwire/lib/platforms.js');

const root = path.resolve(__dirname, '..');
const template = path.join(__dirname, 'tabwire');

function fail(message) {
  process.stderr.write(`npm/stage.js: ${message}\n`);
  process.exit(1);
}

function platformFor(target) {
  const platform = PLATFORMS.find((p) => p.target === target);
  if (!platform) {
    const known = PLATFORMS.map((p) => p.target).join(', ');
    fail(`no npm platform for the target ${target} (known: ${known}); add it to npm/tabwire/lib/platforms.js`);
  }
  return platform;
}

function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** A fresh, empty folder. */
function freshDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
}

function stageLauncher(dir, version, targets) {
  if (targets.length === 0) fail('the launcher needs at least one platform target');
  freshDir(dir);
  for (const entry of ['bin', 'lib', 'README.md']) {
    fs.cpSync(path.join(template, entry), path.join(dir, entry), { recursive: true });
  }
  fs.chmodSync(path.join(dir, 'bin', 'tabwire.js'), 0o755);
  fs.copyFileSync(path.join(root, 'LICENSE'), path.join(dir, 'LICENSE'));

  const manifest = JSON.parse(fs.readFileSync(path.join(template, 'package.json'), 'utf8'));
  manifest.version = version;
  manifest.optionalDependencies = {};
  for (const target of targets) {
    manifest.optionalDependencies[packageName(platformFor(target))] = version;
  }
  writeJson(path.join(dir, 'package.json'), manifest);
}

function stagePlatform(dir, version, target, binary) {
  const platform = platformFor(target);
  if (!fs.statSync(binary, { throwIfNoEntry: false })?.isFile()) fail(`no binary at ${binary}`);
  freshDir(dir);
  const inside = binaryPath(platform);
  fs.mkdirSync(path.join(dir, path.dirname(inside)), { recursive: true });
  fs.copyFileSync(binary, path.join(dir, inside));
  fs.chmodSync(path.join(dir, inside), 0o755);
  fs.copyFileSync(path.join(root, 'LICENSE'), path.join(dir, 'LICENSE'));
  fs.writeFileSync(
    path.join(dir, 'README.md'),
    `# ${packageName(platform)}\n\nThe \`tabwire\` binary for ${platformName(platform)} ` +
      `(Rust target \`${target}\`). Install the \`tabwire\` package instead: it runs this ` +
      'binary on this platform.\n',
  );
  const manifest = {
    name: packageName(platform),
    version,
    description: `The tabwire binary for ${platformName(platform)}.`,
    license: 'Apache-2.0',
    os: [platform.os],
    cpu: [platform.cpu],
    ...(platform.libc ? { libc: [platform.libc] } : {}),
    files: [path.dirname(inside)],
    // Yarn's Plug'n'Play would otherwise keep the binary inside a zip archive.
    preferUnplugged: true,
  };
  writeJson(path.join(dir, 'package.json'), manifest);
}

const [command, dir, version, ...rest] = process.argv.slice(2);
if (!dir || !version) fail('usage: stage.js launcher <dir> <version> <target>... | platform <dir> <version> <target> <binary>');
if (command === 'launcher') {
  stageLauncher(dir, version, rest);
} else if (command === 'platform' && rest.length === 2) {
  stagePlatform(dir, version, rest[0], rest[1]);
} else {
  fail(`unknown command '${command}' (or wrong arguments): launcher <dir> <version> <target>... | platform <dir> <version> <target> <binary>`);
}
