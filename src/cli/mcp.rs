//! `mcp`: the stdio MCP server (see [`crate::mcp`]). Standard output carries the protocol
//! only; the log goes to standard error.

use super::backend;
use super::output::CliError;
use std::path::Path;

#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// Print the configuration an MCP client needs to launch this server (JSON with
    /// `command` and `args`, this binary's full path), instead of serving.
    #[arg(long)]
    pub config: bool,
}

pub(crate) fn mcp(profile: Option<&Path>, a: McpArgs) -> Result<(), CliError> {
    if a.config {
        let exe = std::env::current_exe()
            .map_err(|e| CliError::Usage(format!("cannot find this program's path: {e}")))?;
        let profile = profile
            .map(std::path::absolute)
            .transpose()
            .map_err(|e| CliError::Usage(format!("cannot make the profile path absolute: {e}")))?;
        let config = crate::mcp::client_config(&exe, profile.as_deref());
        super::output::print_line(&serde_json::to_string_pretty(&config).expect("JSON"));
        return Ok(());
    }
    let link = match crate::client::remote::named() {
        Some(_) => crate::client::OwnerLink::to_named_owner(),
        None => crate::client::OwnerLink::new(backend::profile(profile)?),
    };
    // The SDK logs whole messages at debug level and the HTTP client its requests, and
    // neither a message's text nor a token reaches a log: their lines stay at warn
    // whatever SENDLEDGER_LOG asks.
    let filter = tracing_subscriber::EnvFilter::try_from_env("SENDLEDGER_LOG")
        .unwrap_or_else(|_| "warn".into())
        .add_directive("rmcp=warn".parse().expect("a valid directive"))
        .add_directive("ureq=warn".parse().expect("a valid directive"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .log_internal_errors(false) // as `serve`: a broken stderr loses lines, never a call
        .init();
    let rt = tokio::runtime::Runtime::new()
        .map_err(|e| CliError::Unreachable(format!("cannot start the runtime: {e}")))?;
    let served = rt.block_on(crate::mcp::serve_stdio(link));
    // A blocking read of standard input may still be parked: do not wait for it.
    rt.shutdown_timeout(std::time::Duration::from_millis(500));
    served.map_err(CliError::Unreachable)
}
