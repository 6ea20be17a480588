//! The window's commands: thin over [`Desk`], which is thin over the core's API. Every
//! change is committed before the command answers; a refusal carries the core's message
//! (what happened and what to do) and changes nothing.
//!
//! These are the only IPC the window may use (`capabilities/queue-window.json`).

use crate::autostart::Autostart;
use crate::desk::Desk;
use crate::json::{self, Refusal, Row, Snapshot, Status, Update};
use sendledger::ledger::{Decision, KeyScope};
use sendledger::profile::settings::Settings;
use std::sync::Arc;
use tauri::ipc::Channel;
use tauri::{AppHandle, Runtime, State};

/// The whole queue.
#[tauri::command(rename_all = "snake_case")]
pub async fn snapshot(desk: State<'_, Arc<Desk>>) -> Result<Snapshot, Refusal> {
    desk.snapshot().await
}

/// Subscribes the window to live updates: the queue now, then every change as it commits.
#[tauri::command(rename_all = "snake_case")]
pub async fn subscribe(
    desk: State<'_, Arc<Desk>>,
    channel: Channel<Update>,
) -> Result<(), Refusal> {
    desk.listen(channel).await
}

/// The next page of History: settled sends older than `before`, newest first.
#[tauri::command(rename_all = "snake_case")]
pub async fn history_page(
    desk: State<'_, Arc<Desk>>,
    before: Option<String>,
) -> Result<json::HistoryPage, Refusal> {
    desk.history(before).await
}

/// The next page of the Stopped section: stopped or rejected sends older than `before`,
/// newest first.
#[tauri::command(rename_all = "snake_case")]
pub async fn stopped_page(
    desk: State<'_, Arc<Desk>>,
    before: Option<String>,
) -> Result<json::HistoryPage, Refusal> {
    desk.stopped(before).await
}

/// Stop: the emergency brake. No dialog; `by` defaults to the OS user.
#[tauri::command(rename_all = "snake_case")]
pub async fn stop(desk: State<'_, Arc<Desk>>, by: Option<String>) -> Result<Status, Refusal> {
    desk.stop(by).await
}

/// Resume after a Stop: a person's decision.
#[tauri::command(rename_all = "snake_case")]
pub async fn resume(desk: State<'_, Arc<Desk>>, by: Option<String>) -> Result<Status, Refusal> {
    desk.resume(by).await
}

/// Confirm sent, Abandon, or Resend as new, with who and evidence.
#[tauri::command(rename_all = "snake_case")]
pub async fn resolve(
    desk: State<'_, Arc<Desk>>,
    op_id: String,
    decision: Decision,
    by: Option<String>,
    evidence: String,
) -> Result<Vec<Row>, Refusal> {
    desk.resolve(op_id, decision, by, evidence).await
}

/// Queue again a stopped or rejected send (a new operation linked to it).
#[tauri::command(rename_all = "snake_case")]
pub async fn requeue(
    desk: State<'_, Arc<Desk>>,
    op_id: String,
    by: Option<String>,
) -> Result<Vec<Row>, Refusal> {
    desk.requeue(op_id, by).await
}

/// Take back one send before it is clicked (queued or claimed → stopped).
#[tauri::command(rename_all = "snake_case")]
pub async fn withdraw(
    desk: State<'_, Arc<Desk>>,
    op_id: String,
    by: Option<String>,
) -> Result<Vec<Row>, Refusal> {
    desk.withdraw(op_id, by).await
}

/// A one-time code for pairing the extension (valid 5 minutes).
#[tauri::command(rename_all = "snake_case")]
pub async fn pairing_code(desk: State<'_, Arc<Desk>>) -> Result<json::Pairing, Refusal> {
    desk.pairing_code().await
}

/// The Connect panel: base URL, MCP entry, keys (never a secret).
#[tauri::command(rename_all = "snake_case")]
pub async fn connect(desk: State<'_, Arc<Desk>>) -> Result<json::Connect, Refusal> {
    desk.connect().await
}

/// Makes a named API key of `scope` (`send` or `all`; default `send`); the answer carries
/// its secret, the only time it is shown.
#[tauri::command(rename_all = "snake_case")]
pub async fn create_key(
    desk: State<'_, Arc<Desk>>,
    name: String,
    scope: Option<KeyScope>,
    by: Option<String>,
) -> Result<json::MadeKey, Refusal> {
    desk.create_key(name, scope.unwrap_or(KeyScope::Send), by)
        .await
}

/// Revokes a named API key (a person's decision, final; `by` defaults to the OS user).
#[tauri::command(rename_all = "snake_case")]
pub async fn revoke_key(
    desk: State<'_, Arc<Desk>>,
    name: String,
    by: Option<String>,
) -> Result<json::ApiKey, Refusal> {
    desk.revoke_key(name, by).await
}

/// Starts the profile's tray again after it ended without quitting (the window's
/// *Start it again*); answers once it is ready. The window follows it by itself
/// ([`crate::live`]: a new snapshot). A refusal says why the tray could not start.
/// A thumbnail of a stored image the answer generated (a `data:` URL).
#[tauri::command(rename_all = "snake_case")]
pub async fn artifact_preview(
    desk: State<'_, Arc<Desk>>,
    op_id: String,
    n: u32,
) -> Result<json::Preview, Refusal> {
    desk.artifact_preview(op_id, n).await
}

/// Saves a generated file in the Downloads folder, never over another file.
#[tauri::command(rename_all = "snake_case")]
pub async fn save_artifact(
    desk: State<'_, Arc<Desk>>,
    op_id: String,
    n: u32,
) -> Result<json::Saved, Refusal> {
    desk.save_artifact(op_id, n).await
}

/// Check this page in the tab leased last (issue 35); with `report`, the page report is
/// saved in the Downloads folder too.
#[tauri::command(rename_all = "snake_case")]
pub async fn page_check(
    desk: State<'_, Arc<Desk>>,
    open_picker: Option<bool>,
    report: Option<bool>,
) -> Result<serde_json::Value, Refusal> {
    desk.page_check(open_picker.unwrap_or(false), report.unwrap_or(false))
        .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn start_tray(desk: State<'_, Arc<Desk>>) -> Result<(), Refusal> {
    desk.start_tray().await
}

/// The settings the window edits.
#[tauri::command(rename_all = "snake_case")]
pub fn settings<R: Runtime>(
    app: AppHandle<R>,
    desk: State<'_, Arc<Desk>>,
) -> Result<json::Settings, Refusal> {
    Ok(json::Settings {
        stale_uncertain_ms: desk.settings().stale_uncertain_ms,
        autostart: autostart_enabled(&app)?,
        max_in_flight: Some(desk.max_in_flight()?),
        default_destination: Some(desk.default_place()?),
    })
}

/// Saves the settings; the log-in entry is switched through [`Autostart`].
#[tauri::command(rename_all = "snake_case")]
pub async fn save_settings<R: Runtime>(
    app: AppHandle<R>,
    desk: State<'_, Arc<Desk>>,
    settings: json::Settings,
) -> Result<json::Settings, Refusal> {
    // Everything is checked before anything is written: a refusal changes nothing.
    let app_settings = Settings {
        stale_uncertain_ms: settings.stale_uncertain_ms,
    };
    app_settings.check()?;
    desk.save_profile_settings(
        settings.default_destination.as_ref(),
        settings.max_in_flight,
    )
    .await?;
    desk.save_settings(app_settings)?;
    if autostart_enabled(&app)? != settings.autostart {
        let manager = autostart(&app)?;
        if settings.autostart {
            manager.enable()?;
        } else {
            manager.disable()?;
        }
    }
    self::settings(app, desk)
}

fn autostart<R: Runtime>(app: &AppHandle<R>) -> Result<State<'_, Autostart>, Refusal> {
    use tauri::Manager;
    app.try_state::<Autostart>()
        .ok_or_else(|| Refusal::said("starting at log-in is not available in this build"))
}

fn autostart_enabled<R: Runtime>(app: &AppHandle<R>) -> Result<bool, Refusal> {
    use tauri::Manager;
    match app.try_state::<Autostart>() {
        Some(m) => Ok(m.is_enabled()?),
        None => Ok(false),
    }
}

/// Registers every command above (the list build.rs turns into permissions).
pub fn handler<R: Runtime>() -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static {
    tauri::generate_handler![
        snapshot,
        subscribe,
        history_page,
        stopped_page,
        stop,
        resume,
        resolve,
        requeue,
        withdraw,
        pairing_code,
        connect,
        create_key,
        revoke_key,
        settings,
        save_settings,
        start_tray,
        artifact_preview,
        save_artifact,
        page_check
    ]
}
