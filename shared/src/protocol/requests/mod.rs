//! One file per command (or per few that belong together): its fields, what
//! [`Request`](super::Request) says about it (its reply, time limit, resending, effect
//! on the tabs, tab), and the types only its reply uses.
//!
//! The files are those of the one list of commands,
//! [`with_commands!`](crate::with_commands): each is declared here from it, and all it
//! makes public is re-exported.

/// Declares each file of the list as a module and re-exports what it makes public.
macro_rules! declare_modules {
    ($($module:ident { $($request:ident $(= $wire:literal)?)+ })*) => {
        $(
            mod $module;
            pub use $module::*;
        )*
    };
}

crate::with_commands!(declare_modules);
