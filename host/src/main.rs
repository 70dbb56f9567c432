//! The `tabwire` command line: `mcp`, `native-host`, `install`, `doctor`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tabwire::mcp::config::{category_help, take_category_flags, McpArgs};

/// tabwire: let coding agents debug your real Chrome tabs over MCP.
#[derive(Parser)]
#[command(name = "tabwire", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Serve MCP over stdio (what an agent runs).
    #[command(after_help = category_help())]
    Mcp(McpArgs),
    /// Run as the extension's native-messaging host (Chrome starts this).
    NativeHost(tabwire::native_host::NativeHostArgs),
    /// Register the native host with your browsers and print set-up instructions.
    Install(tabwire::install::InstallArgs),
    /// Check each link of the chain (browser, extension, registration, relay) and say
    /// how to fix the first broken one.
    Doctor(tabwire::doctor::DoctorArgs),
    /// Print the tool reference (Markdown) generated from the tool definitions.
    #[command(hide = true)]
    ToolReference,
    /// Check README.md's tool table (written from the definitions) and flag table
    /// against the definitions; name each difference and fail if there is one.
    #[command(hide = true)]
    ReadmeCheck {
        /// The README to check.
        readme: std::path::PathBuf,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TABWIRE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();

    let mut argv: Vec<String> = std::env::args().collect();
    // The reference's flag spellings are `tabwire mcp`'s; other subcommands keep their own
    // (`tabwire doctor --user-data-dir` is not `--userDataDir`).
    if argv.get(1).is_some_and(|a| a == "mcp") {
        match tabwire::mcp::reference_flags::normalize(&mut argv) {
            Ok(notes) => notes.iter().for_each(|note| eprintln!("tabwire: {note}")),
            Err(refusal) => {
                eprintln!("tabwire: {refusal}");
                return ExitCode::from(2);
            }
        }
    }
    let categories = match take_category_flags(&mut argv) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("tabwire: {e}");
            return ExitCode::from(2);
        }
    };
    let cli = Cli::parse_from(argv);
    match run(cli, categories) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tabwire: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(
    cli: Cli,
    categories: std::collections::HashMap<tabwire::mcp::tool::Category, bool>,
) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    match cli.command {
        Cmd::Mcp(mut args) => {
            args.categories = categories;
            if let Some(conflict) = args.conflict() {
                eprintln!("tabwire: {conflict}");
                return Ok(ExitCode::from(2));
            }
            // What sessions killed before they could clean up left behind.
            tabwire::launch::remove_leftovers();
            tabwire::mcp::spill::remove_leftovers();
            // Started on the main thread, before the runtime runs: the browser's life is
            // tied to the thread that starts it.
            let launched = if args.launches_browser() {
                Some(tabwire::launch::LaunchedBrowser::start(&args)?)
            } else {
                None
            };
            let result = runtime.block_on(tabwire::mcp::run(args, launched.as_ref()));
            drop(launched);
            tabwire::mcp::spill::end_session();
            // After a signal, stdin's reader (a blocking thread, which a dropped runtime
            // waits for) may still be waiting for a line that never comes: the clean-up
            // is done, so the process does not wait for it.
            runtime.shutdown_background();
            result?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::NativeHost(args) => {
            runtime.block_on(tabwire::native_host::run(&args.origin))?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Install(args) => {
            tabwire::install::run(args)?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::ToolReference => {
            print!("{}", tabwire::mcp::reference::markdown());
            Ok(ExitCode::SUCCESS)
        }
        Cmd::ReadmeCheck { readme } => {
            let text = std::fs::read_to_string(&readme)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", readme.display()))?;
            let differences = tabwire::mcp::readme::differences(&text);
            for difference in &differences {
                eprintln!("{difference}");
            }
            Ok(if differences.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Cmd::Doctor(args) => {
            let healthy = runtime.block_on(tabwire::doctor::run(args))?;
            Ok(if healthy {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
}
