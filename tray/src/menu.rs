//! The tray icon and its menu, on the GTK thread: an icon per state (normal, needs
//! attention, stopped), the counts as the first (disabled) entry and tooltip, then Open
//! queue, Stop sends (at once, no dialog: the emergency brake), Resume…, Pair extension…,
//! Quit. Through libayatana-appindicator: a StatusNotifierItem with a dbusmenu where a
//! StatusNotifier host runs, an XEmbed icon where only an XEmbed tray does.

use crate::status::{summary, tray_state, TrayState};
use sendledger::api::queue::QueueStatus;
use tray_icon::menu::{Menu, MenuEvent, MenuItem, PredefinedMenuItem};
use tray_icon::{Icon, TrayIcon, TrayIconBuilder};

/// Menu entry ids.
pub mod id {
    pub const STATUS: &str = "status";
    pub const OPEN: &str = "open";
    pub const STOP: &str = "stop";
    pub const RESUME: &str = "resume";
    pub const PAIR: &str = "pair";
    pub const QUIT: &str = "quit";
}

/// A menu entry a person clicked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Click {
    Open,
    Stop,
    Resume,
    Pair,
    Quit,
}

impl Click {
    fn of(id: &str) -> Option<Click> {
        Some(match id {
            id::OPEN => Click::Open,
            id::STOP => Click::Stop,
            id::RESUME => Click::Resume,
            id::PAIR => Click::Pair,
            id::QUIT => Click::Quit,
            _ => return None,
        })
    }
}

/// Why the tray could not be shown.
#[derive(Debug, thiserror::Error)]
pub enum TrayError {
    #[error("the tray icon could not be made: {0}")]
    Icon(#[from] tray_icon::BadIcon),
    #[error("the tray could not be shown: {0}")]
    Tray(#[from] tray_icon::Error),
    #[error("the tray menu could not be built: {0}")]
    Menu(#[from] tray_icon::menu::Error),
}

fn png(state: TrayState) -> &'static [u8] {
    match state {
        TrayState::Normal => include_bytes!("../../icons/tray-normal.png"),
        TrayState::NeedsAttention => include_bytes!("../../icons/tray-attention.png"),
        TrayState::Stopped => include_bytes!("../../icons/tray-stopped.png"),
    }
}

/// The icon for `state`, decoded from the PNGs made by icons/generate.py (RGBA, 8 bit).
fn icon(state: TrayState) -> Result<Icon, TrayError> {
    let decoder = png::Decoder::new(std::io::Cursor::new(png(state)));
    let mut reader = decoder.read_info().expect("tray icons are valid PNGs");
    let mut rgba = vec![0; reader.output_buffer_size().expect("a small icon")];
    let info = reader.next_frame(&mut rgba).expect("tray icons decode");
    rgba.truncate(info.buffer_size());
    Ok(Icon::from_rgba(rgba, info.width, info.height)?)
}

/// The tray and the entries that change with the state. Lives on the GTK thread.
pub struct Tray {
    icon: TrayIcon,
    shown: Option<TrayState>,
    status: MenuItem,
    stop: MenuItem,
    resume: MenuItem,
}

impl Tray {
    /// Builds the tray showing `status`; each click is handed to `on_click` (on the GTK
    /// thread: it must not block).
    pub fn build(
        status: &QueueStatus,
        on_click: impl Fn(Click) + Send + Sync + 'static,
    ) -> Result<Tray, TrayError> {
        let status_item = MenuItem::with_id(id::STATUS, summary(status), false, None);
        let open = MenuItem::with_id(id::OPEN, "Open queue", true, None);
        let stop = MenuItem::with_id(id::STOP, "Stop sends", true, None);
        let resume = MenuItem::with_id(id::RESUME, "Resume…", true, None);
        let pair = MenuItem::with_id(id::PAIR, "Pair extension…", true, None);
        let quit = MenuItem::with_id(id::QUIT, "Quit", true, None);
        let menu = Menu::with_items(&[
            &status_item,
            &PredefinedMenuItem::separator(),
            &open,
            &stop,
            &resume,
            &pair,
            &PredefinedMenuItem::separator(),
            &quit,
        ])?;
        MenuEvent::set_event_handler(Some(move |e: MenuEvent| {
            if let Some(click) = Click::of(e.id.as_ref()) {
                on_click(click);
            }
        }));
        let state = tray_state(status);
        let icon = TrayIconBuilder::new()
            .with_id("sendledger")
            .with_icon(icon(state)?)
            .with_tooltip(format!("sendledger: {}", summary(status)))
            .with_menu(Box::new(menu))
            .with_menu_on_left_click(true)
            .build()?;
        let mut tray = Tray {
            icon,
            shown: Some(state),
            status: status_item,
            stop,
            resume,
        };
        tray.show(status)?;
        Ok(tray)
    }

    /// Shows `status`: icon (only when its state changed), tooltip, counts entry, and
    /// which of Stop / Resume applies.
    pub fn show(&mut self, status: &QueueStatus) -> Result<(), TrayError> {
        let state = tray_state(status);
        if self.shown != Some(state) {
            self.icon.set_icon(Some(icon(state)?))?;
            self.shown = Some(state);
        }
        self.icon
            .set_tooltip(Some(format!("sendledger: {}", summary(status))))?;
        self.status.set_text(summary(status));
        self.stop.set_enabled(!status.gate_closed);
        // Resume also opens the page gate (issue 35: the page changed).
        let page_changed = status.waiting_words.as_deref() == Some("page changed");
        self.resume.set_enabled(status.gate_closed || page_changed);
        Ok(())
    }
}
