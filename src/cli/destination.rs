//! `sendledger destination show|set`: the profile's default destination, the place a send
//! that names none goes to (`default_destination` in the profile's `config.json`). Until a
//! person sets one it is a new chat. A send records the default it took when it was
//! queued, so changing the default never moves a queued send. Setting it is the act
//! `SetDefaultDestination`: the running owner applies it, else this process writes
//! `config.json` and the next owner takes it at start.

use super::backend;
use super::output::{emit, CliError};
use crate::api::{Outcome, Request};
use crate::destination::Destination;
use crate::profile::{default_destination, Config};
use crate::site::Site;
use std::path::Path;

/// The commands.
#[derive(Debug, clap::Subcommand)]
pub enum DestinationCommand {
    /// Prints the default destination.
    Show {
        /// The site whose default it is (`chatgpt`, `claude`).
        #[arg(long, default_value = "chatgpt", value_parser = Site::parse)]
        site: Site,
    },
    /// Sets the default destination: `new-chat`, `conversation ID|URL` or `project ID|URL`.
    Set(SetArgs),
}

#[derive(Debug, clap::Args)]
pub struct SetArgs {
    /// The site whose default it is (`chatgpt`, `claude`); a page address names its own.
    #[arg(long, default_value = "chatgpt", value_parser = Site::parse)]
    pub site: Site,
    /// `new-chat`, `conversation` or `project`.
    #[arg(value_parser = ["new-chat", "conversation", "project"])]
    pub place: String,
    /// The conversation's or the Project's id, or its page address.
    pub id: Option<String>,
    /// The page's model slug a send that names none asks for.
    #[arg(long)]
    pub model: Option<String>,
    /// The thinking effort a send that names none asks for.
    #[arg(long)]
    pub effort: Option<String>,
}

pub(crate) fn run(
    profile: Option<&Path>,
    json: bool,
    c: DestinationCommand,
) -> Result<(), CliError> {
    let d = match c {
        DestinationCommand::Show { site } => Config::load(&backend::profile(profile)?)
            .map_err(CliError::Usage)?
            .default_destination(site),
        DestinationCommand::Set(a) => set(profile, a)?,
    };
    #[derive(serde::Serialize)]
    struct DestinationAnswer<'a> {
        default_destination: &'a Destination,
    }
    emit(
        json,
        &DestinationAnswer {
            default_destination: &d,
        },
        || format!("default destination  {}", d.words()),
    );
    Ok(())
}

/// The named default, checked like a send's, set by the act `SetDefaultDestination`.
fn set(profile: Option<&Path>, a: SetArgs) -> Result<Destination, CliError> {
    let named =
        default_destination::named(&a.place, a.id, a.model, a.effort).map_err(CliError::Usage)?;
    let req = Request::SetDefaultDestination {
        site: a.site,
        destination: named,
    };
    match backend::apply(profile, &req)? {
        Outcome::DefaultDestinationSet {
            default_destination,
            ..
        } => Ok(default_destination),
        _ => Err(CliError::Usage("the owner answered another act".into())),
    }
}
