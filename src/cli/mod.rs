//! The `sendledger` command line: one file per command group, all over [`crate::api`]
//! and the ledger's readers. Every command takes `--json`.
//!
//! Exit codes: 0 done; 1 the ledger refused (a custody rule: payload changed, epoch
//! stopped, wrong state…); 2 bad input; 3 the profile is owned by another process or
//! busy; 4 storage trouble (damaged file, disk full, newer schema, I/O); 5 the owner's
//! bridge could not be reached or answered unexpectedly; 6 no owner is running, so a
//! send (`send`, `requeue`, `resolve --resend`) was refused and nothing was written.

mod artifact;
mod attach;
mod backend;
mod destination;
mod gate;
pub mod inspect;
mod keys;
mod max_in_flight;
mod mcp;
mod output;
mod page_check;
mod retention;
mod sends;
mod serve;
mod status;
mod tool;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

pub use output::CliError;

/// Keeps custody of messages sent into a chat tab: at most once per profile.
#[derive(Debug, Parser)]
#[command(name = "sendledger", version, about, long_about = None)]
pub struct Cli {
    /// Profile directory (default: the platform data directory, e.g. ~/.local/share/sendledger).
    #[arg(long, global = true, env = crate::profile::PROFILE_ENV)]
    pub profile: Option<PathBuf>,
    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// The owner on another machine, by URL: the local end of an SSH tunnel to it
    /// (`http://127.0.0.1:9000`). Needs a key (--key-file or SENDLEDGER_API_KEY); commands
    /// that need the profile's own files (list, status, doctor, serve, settings) refuse.
    #[arg(long, global = true, env = crate::client::remote::OWNER_URL_ENV, value_name = "URL")]
    pub owner: Option<String>,
    /// A file holding the API key for --owner (else SENDLEDGER_API_KEY; never the key
    /// itself on the command line).
    #[arg(long, global = true, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Queue a send (idempotent per --id).
    Send(sends::SendArgs),
    /// List sends, newest first.
    List(sends::ListArgs),
    /// Show one send with its timeline.
    Show(sends::ShowArgs),
    /// Save a file the send's answer generated (its artifact N, as `show` lists them).
    Artifact(artifact::ArtifactArgs),
    /// A person's decision on an uncertain send.
    Resolve(sends::ResolveArgs),
    /// Queue again a stopped, rejected or page_error send (a new operation linked to it).
    Requeue(sends::RequeueArgs),
    /// Take back one send before it is clicked (queued, or handed to the browser and not
    /// yet clicked): it becomes stopped; the other sends go on.
    Withdraw(sends::WithdrawArgs),
    /// Stop: fence the current epoch, stop every send not yet dispatched, close the gate.
    Stop(gate::StopArgs),
    /// Resume after a Stop or a usage limit (a person's decision).
    Resume(gate::ResumeArgs),
    /// At-most-once tool-call receipts.
    #[command(subcommand)]
    Tool(tool::ToolCommand),
    /// Named API keys for the OpenAI-compatible door (companions keep one across restarts).
    #[command(subcommand)]
    Keys(keys::KeysCommand),
    /// The default destination of a send that names none (until set: a new chat).
    #[command(subcommand)]
    Destination(destination::DestinationCommand),
    /// How many sends may be in flight at once, each in its own conversation and tab
    /// (`max_in_flight` in config.json, 1 to 8; 1 until set). Without N: prints it.
    MaxInFlight(max_in_flight::MaxInFlightArgs),
    /// How long settled sends are kept: `--days N` prunes those older than N days (with
    /// files no kept send uses; never an open send), `--days off` keeps all (the default).
    Retention(retention::RetentionArgs),
    /// The profile at a glance: gate, epoch, counts, owner, default destination.
    Status,
    /// Checks the ledger's integrity, file permissions and owner.
    Doctor(status::DoctorArgs),
    /// Rebuilds a damaged ledger from every row still readable: the damaged file is kept
    /// aside untouched, in-flight sends become uncertain, the gate starts closed.
    Salvage,
    /// Runs the owner: takes the profile, recovers, serves the loopback bridge.
    Serve(serve::ServeArgs),
    /// Checks the page in a leased chatgpt.com tab: every fact of the extension's page
    /// contract, holds / fails / not seen yet (nothing typed, nothing sent).
    PageCheck(page_check::PageCheckArgs),
    /// Shows a one-time code to pair the browser extension (valid 5 minutes).
    Pair,
    /// Shows what the ChatGPT parser sees in a captured request, stream, WebSocket log
    /// or conversation listing (run it when chatgpt.com changes).
    Inspect(inspect::InspectArgs),
    /// Serves the MCP tools (send_message, get_send, list_uncertain, stop) on standard
    /// input and output, as a client of the running owner (the app or `serve`).
    Mcp(mcp::McpArgs),
}

/// Runs the CLI with the process's arguments.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::Inspect(args) = &cli.command {
        return inspect::run(args);
    }
    let json = cli.json;
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            output::print_error(&e, json);
            ExitCode::from(e.exit_code())
        }
    }
}

fn run(cli: Cli) -> Result<(), CliError> {
    crate::client::remote::name_the_owner(cli.owner.as_deref(), cli.key_file.as_deref())?;
    let profile = cli.profile.as_deref();
    let json = cli.json;
    match cli.command {
        Command::Send(a) => sends::send(profile, json, a),
        Command::List(a) => sends::list(profile, json, a),
        Command::Show(a) => sends::show(profile, json, a),
        Command::Artifact(a) => artifact::save(profile, json, a),
        Command::Resolve(a) => sends::resolve(profile, json, a),
        Command::Requeue(a) => sends::requeue(profile, json, a),
        Command::Withdraw(a) => sends::withdraw(profile, json, a),
        Command::Stop(a) => gate::stop(profile, json, a),
        Command::Resume(a) => gate::resume(profile, json, a),
        Command::Tool(t) => tool::run(profile, json, t),
        Command::Keys(k) => keys::run(profile, json, k),
        Command::Destination(c) => destination::run(profile, json, c),
        Command::MaxInFlight(a) => max_in_flight::run(profile, json, a),
        Command::Retention(a) => retention::run(profile, json, a),
        Command::Status => status::status(profile, json),
        Command::Doctor(a) => status::doctor(profile, json, a),
        Command::Salvage => status::salvage(profile, json),
        Command::Serve(a) => serve::serve(profile, a),
        Command::PageCheck(a) => page_check::run(profile, json, a),
        Command::Pair => gate::pair(profile, json),
        Command::Mcp(a) => mcp::mcp(profile, a),
        // Answered in `main`: it reads a file, needs no profile, and sets its own exit code.
        Command::Inspect(_) => Ok(()),
    }
}
