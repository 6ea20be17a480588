//! The owner runtime: what `sendledger serve` and the tray app both run.
//!
//! Start-up order is the custody order: take the profile (owner lock), open and migrate
//! the ledger, run recovery, and only then bind the loopback bridge and write
//! `bridge.json`. An expiry sweep applies the [`Bounds`] when the next one falls due
//! ([`sweep`]); a watch on the profile folder notices a Stop committed beside the owner
//! ([`outside`]).

pub mod attachment_upkeep;
pub mod folder_watch;
pub mod sweep;

use crate::bridge::{self, pairing::PairingCode, BridgeState};
use crate::clock::Clock;
use crate::ledger::{Bounds, Event, Ledger, LedgerError, RecoveryReport, Writer};
use crate::profile::Profile;
use crate::profile::{discovery, Config};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;

pub use crate::profile::discovery::{DEFAULT_PORT, LEGACY_DEFAULT_PORT};
/// How long shutdown waits for in-flight requests, in ms.
pub const SHUTDOWN_GRACE_MS: u64 = 5_000;

/// How to run the owner.
#[derive(Clone)]
pub struct OwnerConfig {
    /// The profile to own.
    pub profile: Profile,
    /// Bridge port: `None` = the profile's (`discovery::default_port`); `Some(0)` = any free port.
    pub port: Option<u16>,
    /// Expiry bounds.
    pub bounds: Bounds,
    /// The clock transitions are stamped with.
    pub clock: Arc<dyn Clock>,
}

/// Why the owner could not start.
#[derive(Debug, thiserror::Error)]
pub enum OwnerError {
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error("port {port} on 127.0.0.1 is in use ({source}): stop what uses it, or choose another: write {{\"port\": N}} with a free port N from 1024 to 32767 in {config} (`sendledger serve` also takes --port N)")]
    PortInUse {
        port: u16,
        config: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the profile's settings: {0}")]
    Config(String),
    #[error("cannot write {what} into the profile: {source}")]
    Profile {
        what: &'static str,
        #[source]
        source: crate::profile::ProfileError,
    },
}

/// A running owner: ledger, bridge and sweeps.
pub struct Owner {
    ledger: Writer,
    state: BridgeState,
    address: SocketAddr,
    recovered: RecoveryReport,
    stop_tx: watch::Sender<bool>,
    server: JoinHandle<()>,
    sweeper: JoinHandle<()>,
    upkeep: JoinHandle<()>,
    watcher: JoinHandle<()>,
    profile: Profile,
}

/// Reads `config.json` (a bad value refuses the start before anything is written, the
/// ledger included), pins a new profile's port when `pin_port`, then takes the profile,
/// opens and recovers the ledger and copies the settings into it, read again now that the
/// owner lock is held ([`crate::api::settings::copy_into_ledger`]: a change made offline
/// just before is not missed); the grant takes `bounds`.
async fn open_ledger(
    profile: &Profile,
    clock: Arc<dyn Clock>,
    pin_port: bool,
    bounds: Bounds,
) -> Result<(Ledger, RecoveryReport), OwnerError> {
    Config::load(profile).map_err(OwnerError::Config)?;
    if pin_port {
        discovery::pin_new_profile_port(profile).map_err(OwnerError::Config)?;
    }
    let profile = profile.clone();
    Ok(tokio::task::spawn_blocking(move || {
        let (mut ledger, recovered) = Ledger::open_for_owner(&profile, clock)?;
        let config = Config::load(&profile).map_err(LedgerError::Invalid)?;
        crate::api::settings::copy_into_ledger(&mut ledger, &config)?;
        // The grant refuses a claim past the bound the sweep applies, on the same clock.
        ledger.set_bounds(bounds);
        Ok::<_, LedgerError>((ledger, recovered))
    })
    .await
    .expect("opening the ledger panicked")?)
}

impl Owner {
    /// Takes the profile, recovers, binds the bridge on 127.0.0.1 and writes `bridge.json`
    /// and `client.token` (0600). Errors name what to do (profile owned: the pid; port in use).
    pub async fn start(cfg: OwnerConfig) -> Result<Owner, OwnerError> {
        // Idle connections must never be what keeps Stop out (docs/bridge-api.md).
        let open_files = bridge::connections::raise_open_file_limit();
        let profile = cfg.profile.clone();
        let pin = cfg.port.is_none();
        let (ledger, recovered) = open_ledger(&profile, cfg.clock.clone(), pin, cfg.bounds).await?;
        let ledger = Writer::new(ledger)?;
        let port = match cfg.port {
            Some(p) => p,
            None => discovery::default_port(&profile).map_err(OwnerError::Config)?,
        };
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|source| OwnerError::PortInUse {
                port,
                config: profile
                    .dir()
                    .join(discovery::CONFIG_FILE)
                    .display()
                    .to_string(),
                source,
            })?;
        let address = listener
            .local_addr()
            .map_err(|source| OwnerError::PortInUse {
                port,
                config: discovery::CONFIG_FILE.into(),
                source,
            })?;
        let state = BridgeState::new(profile.clone(), ledger.clone(), cfg.clock.clone()).map_err(
            |source| OwnerError::Profile {
                what: "the tokens",
                source,
            },
        )?;
        discovery::write_bridge_json(&profile, address, cfg.clock.now_ms()).map_err(|source| {
            OwnerError::Profile {
                what: "bridge.json",
                source,
            }
        })?;
        ledger.call(|l| l.check_whole_in_background()).await;
        let (stop_tx, stop_rx) = watch::channel(false);
        let cap = bridge::connections::connection_cap(open_files);
        let server = tokio::spawn(bridge::serve(listener, state.clone(), cap, stop_rx.clone()));
        let watcher = tokio::spawn(folder_watch::run(
            profile.clone(),
            ledger.clone(),
            stop_rx.clone(),
        ));
        let upkeep = tokio::spawn(attachment_upkeep::run(
            ledger.clone(),
            crate::attachments::Store::new(profile.dir()),
            stop_rx.clone(),
        ));
        let sweeper = tokio::spawn(sweep::run(ledger.clone(), cfg.bounds, stop_rx));
        tracing::info!(%address, open_files, connections = cap, rejected = recovered.rejected.len(), uncertain = recovered.uncertain.len(), "owner started");
        Ok(Owner {
            ledger,
            state,
            address,
            recovered,
            stop_tx,
            server,
            sweeper,
            upkeep,
            watcher,
            profile,
        })
    }

    /// The typed API, for in-process front ends (the tray app).
    pub fn api(&self) -> crate::api::Api {
        crate::api::Api::new(self.ledger.clone())
    }

    /// Where the bridge listens (127.0.0.1 only).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// What recovery changed at start-up.
    pub fn recovered(&self) -> &RecoveryReport {
        &self.recovered
    }

    /// Every audit event committed from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.ledger.subscribe()
    }

    /// A new one-time pairing code for the extension (valid 5 minutes).
    pub async fn pairing_code(&self) -> PairingCode {
        self.state.new_pairing_code()
    }

    /// Stops accepting requests, lets in-flight ones finish within [`SHUTDOWN_GRACE_MS`],
    /// removes `bridge.json`, and closes the ledger (releasing the owner lock).
    pub async fn shutdown(self) {
        let _ = self.stop_tx.send(true);
        let grace = std::time::Duration::from_millis(SHUTDOWN_GRACE_MS);
        let _ = tokio::time::timeout(grace, self.server).await;
        let _ = self.sweeper.await;
        let _ = self.upkeep.await;
        let _ = self.watcher.await;
        discovery::remove_bridge_json(&self.profile);
        drop(self.state);
        drop(self.ledger);
        tracing::info!("owner stopped");
    }
}
