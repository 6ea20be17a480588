//! `sendledger destination show|set`: the profile's default destination, the place a send
//! that names none goes to (`default_destination` in the profile's `config.json`). Until a
//! person sets one it is a new chat. A send records the default it took when it was
//! queued, so changing the default never moves a queued send.

use super::backend;
use super::output::{emit, CliError};
use crate::destination::{self, Destination};
use crate::profile::default_destination;
use std::path::Path;

/// The commands.
#[derive(Debug, clap::Subcommand)]
pub enum DestinationCommand {
    /// Prints the default destination.
    Show,
    /// Sets the default destination: `new-chat`, `conversation ID|URL` or `project ID|URL`.
    Set(SetArgs),
}

#[derive(Debug, clap::Args)]
pub struct SetArgs {
    /// `new-chat`, `conversation` or `project`.
    #[arg(value_parser = ["new-chat", "conversation", "project"])]
    pub place: String,
    /// The conversation's or the Project's id, or its chatgpt.com URL.
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
    let profile = backend::profile(profile)?;
    let d = match c {
        DestinationCommand::Show => {
            destination::read_default(profile.dir()).map_err(CliError::Usage)?
        }
        DestinationCommand::Set(a) => set(&profile, a)?,
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

/// The named default, checked like a send's, written into `config.json` (other keys kept).
fn set(profile: &crate::profile::Profile, a: SetArgs) -> Result<Destination, CliError> {
    let named =
        default_destination::named(&a.place, a.id, a.model, a.effort).map_err(CliError::Usage)?;
    default_destination::write(profile, &named).map_err(CliError::Usage)
}
