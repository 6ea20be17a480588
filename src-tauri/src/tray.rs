//! The tray icon and its menu: an icon per state (normal, needs attention, stopped), the
//! counts as the first (disabled) entry and tooltip, and Open queue, Stop sends (at once,
//! no dialog: the emergency brake), Resume…, Pair extension…, Quit.
//!
//! On Linux a click on the icon itself may fire no event (only menu entries do), and some
//! desktops show no tray at all: launching the app again opens the window.

use crate::desk::Desk;
use crate::json::{Intent, Status, TrayState, TrayStatus};
use crate::window;
use std::sync::Arc;
use tauri::image::Image;
use tauri::menu::{Menu, MenuEvent, MenuItem, PredefinedMenuItem};
use tauri::tray::{TrayIcon, TrayIconBuilder};
use tauri::{AppHandle, Runtime};

/// Menu entry ids (also what the D-Bus menu tests look for by label).
pub mod id {
    pub const STATUS: &str = "status";
    pub const OPEN: &str = "open";
    pub const STOP: &str = "stop";
    pub const RESUME: &str = "resume";
    pub const PAIR: &str = "pair";
    pub const QUIT: &str = "quit";
}

fn icon(state: TrayState) -> Image<'static> {
    let bytes: &'static [u8] = match state {
        TrayState::Normal => include_bytes!("../../icons/tray-normal.png"),
        TrayState::NeedsAttention => include_bytes!("../../icons/tray-attention.png"),
        TrayState::Stopped => include_bytes!("../../icons/tray-stopped.png"),
    };
    Image::from_bytes(bytes).expect("tray icons are valid PNGs (icons/generate.py)")
}

/// The tray and the menu entries that change with the state.
pub struct Tray<R: Runtime> {
    icon: TrayIcon<R>,
    status: MenuItem<R>,
    stop: MenuItem<R>,
    resume: MenuItem<R>,
}

impl<R: Runtime> Tray<R> {
    /// Builds the tray showing `status`.
    pub fn build(app: &AppHandle<R>, desk: Arc<Desk>, status: &Status) -> tauri::Result<Self> {
        let status_item =
            MenuItem::with_id(app, id::STATUS, status.summary(), false, None::<&str>)?;
        let open = MenuItem::with_id(app, id::OPEN, "Open queue", true, None::<&str>)?;
        let stop = MenuItem::with_id(app, id::STOP, "Stop sends", true, None::<&str>)?;
        let resume = MenuItem::with_id(app, id::RESUME, "Resume…", true, None::<&str>)?;
        let pair = MenuItem::with_id(app, id::PAIR, "Pair extension…", true, None::<&str>)?;
        let quit = MenuItem::with_id(app, id::QUIT, "Quit", true, None::<&str>)?;
        let menu = Menu::with_items(
            app,
            &[
                &status_item,
                &PredefinedMenuItem::separator(app)?,
                &open,
                &stop,
                &resume,
                &pair,
                &PredefinedMenuItem::separator(app)?,
                &quit,
            ],
        )?;
        let icon = TrayIconBuilder::with_id("sendledger")
            .icon(icon(status.tray_state()))
            .tooltip(format!("sendledger: {}", status.summary()))
            .menu(&menu)
            .show_menu_on_left_click(true)
            .on_menu_event(move |app, event| on_menu(app, &desk, event))
            .build(app)?;
        let tray = Tray {
            icon,
            status: status_item,
            stop,
            resume,
        };
        tray.show(status)?;
        Ok(tray)
    }

    /// Shows `status`: icon, tooltip, counts entry, and which of Stop / Resume applies.
    pub fn show(&self, status: &Status) -> tauri::Result<()> {
        self.icon.set_icon(Some(icon(status.tray_state())))?;
        self.icon
            .set_tooltip(Some(format!("sendledger: {}", status.summary())))?;
        self.status.set_text(status.summary())?;
        self.stop.set_enabled(!status.gate_closed)?;
        self.resume.set_enabled(status.gate_closed)?;
        Ok(())
    }
}

fn on_menu<R: Runtime>(app: &AppHandle<R>, desk: &Arc<Desk>, event: MenuEvent) {
    match event.id.as_ref() {
        id::OPEN => window::open(app),
        id::STOP => {
            let desk = desk.clone();
            tauri::async_runtime::spawn(async move {
                match desk.stop(None).await {
                    Ok(_) => log::info!("stopped from the tray"),
                    Err(e) => log::error!("Stop from the tray failed: {}", e.message),
                }
            });
        }
        id::RESUME => {
            desk.ask(Intent::Resume);
            window::open(app);
        }
        id::PAIR => {
            let (desk, app) = (desk.clone(), app.clone());
            tauri::async_runtime::spawn(async move {
                match desk.pairing_code().await {
                    Ok(code) => {
                        desk.ask(Intent::Pair(code));
                        window::open(&app);
                    }
                    Err(e) => log::error!("no pairing code: {}", e.message),
                }
            });
        }
        id::QUIT => app.exit(0),
        _ => {}
    }
}
