//! The WASM shell (placeholder while it is written).
