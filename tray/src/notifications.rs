//! The stale-uncertain sweep: an uncertain send left unresolved past the threshold (a
//! setting, default 5 minutes) gets one desktop notification, recorded in the ledger
//! (`mark_notified`) so a restart does not notify again. A usage limit (the limit gate)
//! gets one notification per closing, recorded the same way (`mark_limit_notified`); so
//! does the page-changed gate (`mark_page_gate_notified`, issue 35).
//!
//! Order: show, then record. A failed show (no notification service) is recorded nowhere
//! and tried again a minute later; the tray's attention icon shows the send meanwhile. The
//! notification carries the operation id, never the message's text. Clicking it (where
//! the desktop supports actions) opens the queue window. The threshold is re-read when
//! `app.json` changes ([`crate::settings_watch`]).

use crate::settings_watch::SettingsWatch;
use crate::window::{Intent, Windows};
use notify_rust::Notification;
use sendledger::api::{Api, Request};
use sendledger::ledger::Send;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How long a failed notification waits before it is tried again.
pub const RETRY_AFTER: Duration = Duration::from_secs(60);

/// The longest the sweep sleeps with nothing due and no commit: a clock set forward is
/// noticed within this.
pub const MAX_SLEEP: Duration = Duration::from_secs(60);

/// How long the sweep sleeps: until the next uncertain send becomes stale (`next_stale_ms`,
/// on the ledger's clock read as `now_ms`) or the first failed notification may be tried
/// again (`retry_in`), whichever is sooner; at most [`MAX_SLEEP`]. Commits and a changed
/// threshold wake it earlier.
pub fn wait_for(next_stale_ms: Option<i64>, now_ms: i64, retry_in: Option<Duration>) -> Duration {
    let stale = next_stale_ms.map(|at| Duration::from_millis((at - now_ms).max(0) as u64));
    [stale, retry_in]
        .into_iter()
        .flatten()
        .fold(MAX_SLEEP, Duration::min)
}

/// The most characters of a send's text a notification shows.
pub const NAMED_CHARS: usize = 60;

/// How a notification names a send: the start of its text, as a person wrote it (issue 25:
/// a random operation id named nothing a person recognises). Only the desktop's
/// notification shows it; the log names the operation id, never the text.
pub fn named(send: &Send) -> String {
    let folded: String = send.text.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.chars().count() <= NAMED_CHARS {
        folded
    } else {
        let cut: String = folded.chars().take(NAMED_CHARS - 1).collect();
        format!("{cut}…")
    }
}

/// The notification for one stale uncertain send, naming it by its text.
pub fn notification(send: &Send, now_ms: i64) -> Notification {
    let minutes = ((now_ms - send.updated_at).max(0) / 60_000).max(1);
    let mut n = Notification::new();
    n.appname("sendledger")
        .summary("A send needs you: it may or may not have gone out")
        .body(&format!(
            "“{}” has been uncertain for {minutes} min. Open the queue to confirm it, abandon it or resend it.",
            named(send)
        ))
        .icon("dialog-warning")
        .action("default", "Open queue");
    n
}

/// Runs the sweep for as long as the app runs: a pass now, then one whenever the next
/// send becomes stale, a failed notification may be retried, the owner commits a write, or
/// the threshold changes — never on a timer while nothing is due.
pub fn spawn_sweep(api: Api, mut settings: SettingsWatch, windows: Windows) {
    tokio::spawn(async move {
        let mut failed: HashMap<String, Instant> = HashMap::new();
        let mut writes = api.watch_writes();
        loop {
            writes.borrow_and_update();
            let wait = pass(&api, &settings, &windows, &mut failed).await;
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                changed = writes.changed() => {
                    if changed.is_err() {
                        return;
                    }
                }
                _ = settings.changed() => {}
            }
        }
    });
}

/// Notifies every stale uncertain send not notified yet; returns how long to sleep.
async fn pass(
    api: &Api,
    settings: &SettingsWatch,
    windows: &Windows,
    failed: &mut HashMap<String, Instant>,
) -> Duration {
    notify_limit_once(api).await;
    notify_page_gate_once(api).await;
    let threshold = settings.current().stale_uncertain_ms;
    let read = match api.stale_uncertain(threshold).await {
        Ok((stale, now)) => api
            .next_stale_uncertain_at(threshold)
            .await
            .map(|next| (stale, next, now)),
        Err(e) => Err(e),
    };
    let (stale, next, now) = match read {
        Ok(r) => r,
        Err(e) => {
            tracing::error!("stale-uncertain sweep cannot read the ledger: {e}");
            return Duration::from_secs(1);
        }
    };
    failed.retain(|_, at| at.elapsed() < RETRY_AFTER);
    for send in stale {
        if failed.contains_key(&send.op_id) {
            continue;
        }
        if let Err(e) = notify_once(api, windows, &send, now).await {
            tracing::warn!(
                "cannot notify about uncertain send {}: {e}; trying again in a minute",
                send.op_id
            );
            failed.insert(send.op_id.clone(), Instant::now());
        }
    }
    let retry_in = failed
        .values()
        .map(|at| RETRY_AFTER.saturating_sub(at.elapsed()))
        .min();
    wait_for(next, now, retry_in)
}

/// One notification per closing of the limit gate (a page's usage limit), recorded in the
/// ledger (`mark_limit_notified`) after it was shown; a failed show is tried next pass.
async fn notify_limit_once(api: &Api) {
    let Ok(Some((gate, now))) = api.limit_gate_to_notify().await else {
        return;
    };
    let body = match gate.until_ms {
        Some(t) => format!(
            "ChatGPT usage limit: sending resumes at {}. Queued sends wait; Resume in the queue sends them now.",
            sendledger::ledger::local_time(t, now)
        ),
        // A refusal holding until a resume (a 403 "Unusual activity", a 431) in the page's words.
        None => match gate.reason.as_deref() {
            Some(words) => format!("ChatGPT said no (\"{words}\"). Queued sends wait until you resume."),
            None => "ChatGPT usage limit: the page named no reset time. Queued sends wait until you resume.".into(),
        },
    };
    let mut n = Notification::new();
    n.appname("sendledger")
        .summary("ChatGPT usage limit: sends are waiting")
        .body(&body)
        .icon("dialog-information");
    match tokio::task::spawn_blocking(move || n.show()).await {
        Ok(Ok(_)) => {
            let _ = api.mark_limit_notified().await;
            tracing::info!("notified about the usage limit");
        }
        _ => tracing::warn!("cannot notify about the usage limit; trying again next pass"),
    }
}

/// One notification per closing of the page-changed gate (a fact every send needs did not
/// hold), recorded in the ledger (`mark_page_gate_notified`) after it was shown; a failed
/// show is tried next pass. Names the fact and what to do, never a message's text.
async fn notify_page_gate_once(api: &Api) {
    let Ok(Some(gate)) = api.page_gate_to_notify().await else {
        return;
    };
    let fact = gate.fact_id.as_deref().unwrap_or("a page fact");
    let body = format!(
        "The chatgpt.com page changed: page fact {fact}, which every send needs, was not recognised. Nothing is typed; queued sends wait. Update the extension, or reload the tab and run Check this page, then Resume."
    );
    let mut n = Notification::new();
    n.appname("sendledger")
        .summary("The page changed: sends are waiting")
        .body(&body)
        .icon("dialog-warning")
        .action("default", "Open queue");
    match tokio::task::spawn_blocking(move || n.show()).await {
        Ok(Ok(_)) => {
            let _ = api.mark_page_gate_notified().await;
            tracing::info!(fact, "notified that the page changed");
        }
        _ => tracing::warn!("cannot notify that the page changed; trying again next pass"),
    }
}

async fn notify_once(api: &Api, windows: &Windows, send: &Send, now: i64) -> Result<(), String> {
    let n = notification(send, now);
    // `show()` blocks on D-Bus: never on the main thread or an async worker.
    let handle = tokio::task::spawn_blocking(move || n.show())
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    api.apply(Request::MarkNotified {
        op_id: send.op_id.as_str().into(),
    })
    .await
    .map_err(|e| e.to_string())?;
    tracing::info!("notified about uncertain send {}", send.op_id);
    let windows = windows.clone();
    std::thread::spawn(move || {
        handle.wait_for_action(|action| {
            if action == "default" {
                windows.open(Intent::Queue);
            }
        })
    });
    Ok(())
}
