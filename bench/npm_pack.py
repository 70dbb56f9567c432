"""npm packages at pinned versions, unpacked into a cache folder, without npm install:
`npm pack` fetches each package's tarball from the registry once, and each is unpacked
into a folder of its own, marked with its spec so that a later run skips it. Nothing
is resolved: the caller names every package it needs, dependencies too.

Used by scripts/snapshot-fidelity (component libraries served to pages) and
scripts/fixture-angular (an app bundled from node_modules).
"""

import os
import shutil
import subprocess
import tarfile


def install(packages, lib, tarballs):
    """Unpack each `spec` of `packages` (npm spec → folder under `lib`) once, from a
    tarball kept in `tarballs`. Returns whether anything was unpacked."""
    os.makedirs(tarballs, exist_ok=True)
    changed = False
    for spec, folder in packages.items():
        target = os.path.join(lib, folder)
        stamp = os.path.join(target, ".fidelity-spec")
        if os.path.exists(stamp) and open(stamp).read() == spec:
            continue
        out = subprocess.run(["npm", "pack", spec, "--silent", "--pack-destination", tarballs],
                             capture_output=True, text=True, timeout=300,
                             env={**os.environ, "npm_config_update_notifier": "false"})
        if out.returncode != 0:
            raise SystemExit(f"npm pack {spec} failed: {out.stderr.strip()[:500]}")
        name = out.stdout.strip().splitlines()[-1]
        shutil.rmtree(target, ignore_errors=True)
        os.makedirs(target)
        with tarfile.open(os.path.join(tarballs, name)) as tar:
            for member in tar.getmembers():
                if not member.name.startswith("package/"):
                    continue
                member.name = member.name[len("package/"):]
                tar.extract(member, target, filter="data")
        with open(stamp, "w") as f:
            f.write(spec)
        changed = True
    return changed
