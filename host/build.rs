//! Makes the built extension part of the `tabwire` binary.
//!
//! The binary carries the loadable extension folder (`dist/extension`, which
//! `scripts/build-extension` assembles) so that it works when copied anywhere alone:
//! `tabwire install` writes that copy to a per-user folder and `tabwire mcp --launch`
//! loads it. This script only checks that the folder is built, tells the compiler where
//! it is (`TABWIRE_EXTENSION_BUILD`, read by `include_dir!` in
//! `src/bundled_extension.rs`) and asks cargo to rebuild when it changes.

use std::path::PathBuf;

/// Files without which the folder is not a loadable extension.
const REQUIRED: [&str; 3] = [
    "manifest.json",
    "background.js",
    "tabwire_extension_bg.wasm",
];

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let dist = manifest_dir.join("..").join("dist").join("extension");
    println!("cargo:rerun-if-changed={}", dist.display());
    let missing: Vec<&str> = REQUIRED
        .into_iter()
        .filter(|file| !dist.join(file).is_file())
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "\nThe tabwire binary carries the built browser extension, and {} lacks {}.\n\
             Build with `scripts/build` (or `scripts/build --release`), which builds the \
             extension first; `scripts/bootstrap` installs its toolchain.\n",
            dist.display(),
            missing.join(", ")
        );
        std::process::exit(1);
    }
    let dist = dist.canonicalize().unwrap_or(dist);
    println!("cargo:rustc-env=TABWIRE_EXTENSION_BUILD={}", dist.display());
}
