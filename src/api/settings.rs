//! Settings are acts: [`Request::SetMaxInFlight`] and [`Request::SetDefaultDestination`]
//! change the profile's `config.json` by its one update ([`Config::update`]: locked,
//! written whole, fsynced, renamed) and the ledger's copy in the same call, so the ledger
//! reads only SQLite. Applied by the owner when one runs (its single writer), else by the
//! calling process on `config.json` alone, and the next owner copies it into its ledger
//! at start. A later setting (a retention period, …) is one more variant, one more arm
//! in [`apply`] and [`apply_offline`], one more key in [`Config`].

use super::{Outcome, Request};
use crate::destination::Destination;
use crate::ledger::{Ledger, LedgerError};
use crate::profile::{Config, Profile};
use crate::site::Site;

/// Whether `req` is a setting (applied by this module).
pub(super) fn is_setting(req: &Request) -> bool {
    matches!(
        req,
        Request::SetMaxInFlight { .. } | Request::SetDefaultDestination { .. }
    )
}

/// Changes `config` as `req` asks; the value now in force. Errors: the bound's sentence.
fn change(config: &mut Config, req: &Request) -> Result<Setting, String> {
    match req {
        Request::SetMaxInFlight { max_in_flight } => {
            config.set_max_in_flight(*max_in_flight).map(Setting::Cap)
        }
        Request::SetDefaultDestination { site, destination } => config
            .set_default_destination(*site, destination)
            .map(|d| Setting::Default(*site, d)),
        _ => unreachable!("only settings reach settings::change"),
    }
}

/// A setting as changed.
enum Setting {
    Cap(u32),
    Default(Site, Destination),
}

impl Setting {
    fn outcome(self) -> Outcome {
        match self {
            Setting::Cap(n) => Outcome::MaxInFlightSet { max_in_flight: n },
            Setting::Default(_, d) => Outcome::DefaultDestinationSet {
                words: d.words(),
                default_destination: d,
            },
        }
    }
}

/// The owner's application: `config.json`, then the ledger's copy. Errors: `Invalid`
/// with the sentence (a value out of bounds, the file not valid or not writable), with
/// nothing changed.
pub(super) fn apply(ledger: &mut Ledger, req: &Request) -> Result<Outcome, LedgerError> {
    let set = Config::update(ledger.profile(), |c| change(c, req)).map_err(LedgerError::Invalid)?;
    match &set {
        Setting::Cap(n) => ledger.set_max_in_flight(*n)?,
        Setting::Default(site, d) => ledger.set_default_destination(*site, d)?,
    }
    Ok(set.outcome())
}

/// With no owner: `config.json` alone (the next owner copies it into its ledger at
/// start). Refused when an owner took the profile meanwhile: the change would miss its
/// ledger, so nothing is written and the sentence says to run it again.
pub(super) fn apply_offline(profile: &Profile, req: &Request) -> Result<Outcome, LedgerError> {
    Config::update(profile, |c| {
        if profile.is_owned() {
            return Err("an owner took this profile while the setting was being changed: nothing was written; run the command again (it goes to the owner now)".into());
        }
        change(c, req)
    })
    .map(Setting::outcome)
    .map_err(LedgerError::Invalid)
}

/// The owner at start: copies `config` into the ledger (its cap and default
/// destinations), read after the owner lock was taken, so a change made offline before
/// it is never missed. Errors: the ledger's.
pub fn copy_into_ledger(ledger: &mut Ledger, config: &Config) -> Result<(), LedgerError> {
    ledger.set_max_in_flight(config.max_in_flight())?;
    for site in crate::site::ALL {
        ledger.set_default_destination(site, &config.default_destination(site))?;
    }
    Ok(())
}
