//! Live updates: every audit event the owner commits becomes the changed rows pushed to
//! the window, and every change of counts or gate reaches the tray and the window. The
//! window never polls.

use crate::desk::Desk;
use crate::json::Update;
use crate::tray::Tray;
use std::collections::BTreeSet;
use std::sync::Arc;
use tauri::Runtime;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

/// Forwards committed events to the window as changed rows (a burst becomes one update).
pub fn forward_events(desk: Arc<Desk>) {
    let mut rx = desk.subscribe_events();
    tauri::async_runtime::spawn(async move {
        loop {
            let mut ids = BTreeSet::new();
            let mut lagged = false;
            match rx.recv().await {
                Ok(e) => {
                    ids.insert(e.op_id);
                }
                Err(RecvError::Lagged(_)) => lagged = true,
                Err(RecvError::Closed) => return,
            }
            loop {
                match rx.try_recv() {
                    Ok(e) => {
                        ids.insert(e.op_id);
                    }
                    Err(TryRecvError::Lagged(_)) => lagged = true,
                    Err(_) => break,
                }
            }
            let update = if lagged {
                desk.snapshot().await.map(Update::Snapshot)
            } else {
                match (desk.status().await, desk.rows(ids).await) {
                    (Ok(status), Ok(rows)) => Ok(Update::Changed { status, rows }),
                    (Err(e), _) | (_, Err(e)) => Err(e),
                }
            };
            match update {
                Ok(u) => {
                    desk.push(u);
                }
                Err(e) => log::error!("cannot read the ledger for the window: {}", e.message),
            }
        }
    });
}

/// Shows every change of counts or gate in the tray and the window (a Stop with nothing
/// queued writes no audit event, yet the gate changed).
pub fn follow_status<R: Runtime>(desk: Arc<Desk>, tray: Tray<R>) {
    let mut rx = desk.watch_status();
    tauri::async_runtime::spawn(async move {
        while rx.changed().await.is_ok() {
            let status = rx.borrow_and_update().clone();
            if let Err(e) = tray.show(&status) {
                log::warn!("cannot update the tray: {e}");
            }
            desk.push(Update::Changed {
                status,
                rows: Vec::new(),
            });
        }
    });
}

/// Re-reads counts and gate after every write the owner commits, so a Stop or Resume made
/// through the bridge (which may write no audit event) reaches the tray at once.
pub fn follow_writes(desk: Arc<Desk>) {
    let mut rx = desk.api().watch_writes();
    tauri::async_runtime::spawn(async move {
        while rx.changed().await.is_ok() {
            rx.borrow_and_update();
            let _ = desk.status().await;
        }
    });
}
