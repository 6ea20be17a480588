//! `serve`: the headless owner.

use super::backend;
use super::output::CliError;
use crate::clock::SystemClock;
use crate::ledger::Bounds;
use crate::owner::{Owner, OwnerConfig};
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Bridge port on 127.0.0.1 (default: config.json's port, else 27615; 0 = any free port).
    #[arg(long)]
    pub port: Option<u16>,
    /// Claim bound: a claim with no grant asked within this many ms is failed.
    #[arg(long, default_value_t = Bounds::default().claim_ms)]
    pub claim_ms: i64,
    /// Receipt bound: a dispatched send with no receipt within this many ms becomes uncertain.
    #[arg(long, default_value_t = Bounds::default().receipt_ms)]
    pub receipt_ms: i64,
    /// Answer bound: an accepted send stops holding the queue after this many ms.
    #[arg(long, default_value_t = Bounds::default().answer_ms)]
    pub answer_ms: i64,
    /// Lease silence bound: a lease whose tab asked nothing within this many ms is ended.
    #[arg(long, default_value_t = Bounds::default().lease_silence_ms)]
    pub lease_silence_ms: i64,
}

pub(crate) fn serve(profile: Option<&Path>, a: ServeArgs) -> Result<(), CliError> {
    let profile = backend::profile(profile)?;
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SENDLEDGER_LOG")
                .unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        // A stderr that cannot be written (a closed pipe, a full disk) loses log lines; its
        // default, a note on that same stderr, panics there and drops the request it logs.
        .log_internal_errors(false)
        .init();
    let rt = tokio::runtime::Runtime::new()
        .map_err(|e| CliError::Unreachable(format!("cannot start the runtime: {e}")))?;
    rt.block_on(async move {
        let cfg = OwnerConfig {
            profile,
            port: a.port,
            bounds: Bounds {
                claim_ms: a.claim_ms,
                receipt_ms: a.receipt_ms,
                answer_ms: a.answer_ms,
                lease_silence_ms: a.lease_silence_ms,
            },
            clock: Arc::new(SystemClock),
        };
        let owner = Owner::start(cfg).await.map_err(|e| match e {
            crate::owner::OwnerError::Ledger(l) => CliError::Ledger(l),
            p @ crate::owner::OwnerError::Profile { .. } => CliError::Storage(p.to_string()),
            other => CliError::Unreachable(other.to_string()),
        })?;
        let r = owner.recovered();
        // The owner keeps running whoever reads this: a closed stdout (`serve | head -1`)
        // is not a reason to stop, so write failures are ignored here.
        let mut said = format!(
            "listening on {}\nport {}\n",
            owner.address(),
            owner.address().port()
        );
        if !r.rejected.is_empty() || !r.uncertain.is_empty() {
            said.push_str(&format!(
                "recovered: {} queued send(s) rejected, {} in-flight send(s) uncertain (see `sendledger list --state uncertain`)\n",
                r.rejected.len(),
                r.uncertain.len()
            ));
        }
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(said.as_bytes()).and_then(|()| out.flush());
        drop(out);
        tracing::info!(
            address = %owner.address(),
            "serving until {}",
            crate::platform::SHUTDOWN_SIGNALS
        );
        wait_for_signal().await;
        owner.shutdown().await;
        Ok(())
    })
}

async fn wait_for_signal() {
    crate::platform::shutdown_signal().await
}
