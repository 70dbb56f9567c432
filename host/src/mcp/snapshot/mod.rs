//! What the agent is shown of a snapshot, computed here from the [`Snapshot`] the
//! extension sent, whatever way the extension built it.
//!
//! - [`links`]: who is whose parent and where each subtree ends, found once.
//! - [`subtree`]: one element and everything under it (`take_snapshot {uid}`).
//! - [`fold`]: a character budget met by folding runs of similar siblings into one
//!   line (`maxChars`, `unfold`), and cutting, said where, only when folding is not
//!   enough.
//! - [`changes`]: what changed since the last snapshot the agent was given.
//! - [`memory`]: that last snapshot, per page, and the numbers snapshots are known by.
//!
//! Nothing here drops a role, name, value, state or uid of a line it shows, and
//! nothing is left out without a line saying what and how to get it.
//!
//! [`Snapshot`]: tabwire_shared::Snapshot

pub mod changes;
pub mod fold;
pub mod links;
pub mod memory;
pub mod subtree;
