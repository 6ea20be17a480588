//! Notices a StatusNotifier host opening and closing the tray's menu, so a window can be
//! prepared while the person reads it ([`crate::window::Windows::prepare`]).
//!
//! libayatana-appindicator serves the menu over dbusmenu (`com.canonical.dbusmenu`) on this
//! process's shared session-bus connection, and tells the application nothing of a menu
//! being shown. A host asks `AboutToShow(0)` (or `AboutToShowGroup([0, …])`) of the root
//! before it shows the menu, and sends `Event(0, "opened" | "closed", …)` (or the same in
//! an `EventGroup`) around it: a GDBus filter on that connection reads those calls and
//! lets every message through untouched. Where no host runs, libayatana-appindicator pops
//! the same menu up itself on its XEmbed icon, as a GtkMenu of this process: an emission
//! hook on GtkWidget's `map` and `unmap` sees it shown and hidden ([`watch_popups`]).

use gtk::gio;
use gtk::glib::Variant;

/// What the host did with the menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MenuSeen {
    /// About to show, or shown.
    Opened,
    /// Closed (an entry may have been clicked just before or just after).
    Closed,
}

/// The dbusmenu interface the host calls.
pub const DBUSMENU: &str = "com.canonical.dbusmenu";
/// The root item's id: the menu itself (not a submenu).
const ROOT: i32 = 0;

/// Installs the filter on the session bus connection; `seen` is called on the GDBus worker
/// thread and must not block. Without a session bus nothing is watched.
pub fn watch(seen: impl Fn(MenuSeen) + Send + Sync + 'static) {
    let bus = match gio::bus_get_sync(gio::BusType::Session, gio::Cancellable::NONE) {
        Ok(bus) => bus,
        Err(e) => {
            tracing::info!(
                "no session bus: the window is not prepared while the menu is open ({e})"
            );
            return;
        }
    };
    bus.add_filter(move |_, message, incoming| {
        if incoming && message.message_type() == gio::DBusMessageType::MethodCall {
            if let Some(what) = seen_in(
                message.interface().as_deref(),
                message.member().as_deref(),
                message.body().as_ref(),
            ) {
                seen(what);
            }
        }
        Some(message.clone())
    });
    // The filter lives on the shared connection; this reference keeps that connection (and
    // so the filter) for the process's life, whoever else lets it go.
    std::mem::forget(bus);
}

/// Watches this process's own menus pop up and down (the XEmbed fallback's menu; a menu
/// served over dbusmenu is never mapped here). Call on the GTK thread, after `gtk::init`;
/// `seen` runs on it and must not block.
pub fn watch_popups(seen: impl Fn(MenuSeen) + Clone + 'static) {
    use gtk::glib::{gobject_ffi, translate::IntoGlib, Type};
    use gtk::prelude::{ObjectExt, StaticType};

    type Hook = (Box<dyn Fn(MenuSeen)>, MenuSeen);

    unsafe extern "C" fn on_emission(
        _hint: *mut gobject_ffi::GSignalInvocationHint,
        n_values: std::ffi::c_uint,
        values: *const gobject_ffi::GValue,
        data: gtk::glib::ffi::gpointer,
    ) -> gtk::glib::ffi::gboolean {
        if n_values >= 1 && !values.is_null() {
            // SAFETY: GLib hands the emission's values, the instance first; `glib::Value`
            // is a transparent wrapper of `GValue`; `data` is the `Hook` leaked below.
            let instance = unsafe { &*(values as *const gtk::glib::Value) };
            if instance
                .get::<gtk::Widget>()
                .is_ok_and(|w| w.is::<gtk::Menu>())
            {
                let (seen, what) = unsafe { &*(data as *const Hook) };
                seen(*what);
            }
        }
        gtk::glib::ffi::GTRUE // stay for the process's life
    }

    let widget: Type = gtk::Widget::static_type();
    for (signal, what) in [(c"map", MenuSeen::Opened), (c"unmap", MenuSeen::Closed)] {
        // SAFETY: GTK is initialised (GtkWidget's class and signals exist); the hook's data
        // lives as long as the process (it is never removed).
        unsafe {
            let id = gobject_ffi::g_signal_lookup(signal.as_ptr(), widget.into_glib());
            if id == 0 {
                tracing::warn!("no GtkWidget::{signal:?} signal: popup menus are not watched");
                continue;
            }
            let hook: *mut Hook = Box::into_raw(Box::new((Box::new(seen.clone()), what)));
            gobject_ffi::g_signal_add_emission_hook(id, 0, Some(on_emission), hook.cast(), None);
        }
    }
}

/// What a dbusmenu call says of the root menu, if anything: `interface`, `member` and
/// `body` (the call's argument tuple) as they arrived.
pub fn seen_in(
    interface: Option<&str>,
    member: Option<&str>,
    body: Option<&Variant>,
) -> Option<MenuSeen> {
    if interface != Some(DBUSMENU) {
        return None;
    }
    let body = body?;
    match member? {
        "AboutToShow" => (arg::<i32>(body, 0)? == ROOT).then_some(MenuSeen::Opened),
        "AboutToShowGroup" => {
            let ids = body.try_child_value(0)?;
            (0..ids.n_children())
                .any(|i| ids.child_value(i).get::<i32>() == Some(ROOT))
                .then_some(MenuSeen::Opened)
        }
        "Event" => event(arg::<i32>(body, 0)?, &arg::<String>(body, 1)?),
        "EventGroup" => {
            let events = body.try_child_value(0)?;
            // The last event on the root wins (a group may hold "opened" and "closed").
            (0..events.n_children()).rev().find_map(|i| {
                let e = events.child_value(i);
                event(arg::<i32>(&e, 0)?, &arg::<String>(&e, 1)?)
            })
        }
        _ => None,
    }
}

fn event(id: i32, name: &str) -> Option<MenuSeen> {
    match (id, name) {
        (ROOT, "opened") => Some(MenuSeen::Opened),
        (ROOT, "closed") => Some(MenuSeen::Closed),
        _ => None,
    }
}

fn arg<T: gtk::glib::FromVariant>(tuple: &Variant, i: usize) -> Option<T> {
    tuple.try_child_value(i)?.get::<T>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gtk::glib::ToVariant;

    fn call(member: &str, body: Variant) -> Option<MenuSeen> {
        seen_in(Some(DBUSMENU), Some(member), Some(&body))
    }

    /// One event as dbusmenu types it: `(isvu)`.
    fn event_of(id: i32, name: &str) -> (i32, String, Variant, u32) {
        (
            id,
            name.to_string(),
            Variant::from_variant(&"".to_variant()),
            0,
        )
    }

    fn ev(id: i32, name: &str) -> Variant {
        event_of(id, name).to_variant()
    }

    #[test]
    fn only_the_root_menus_about_to_show_and_open_and_close_events_are_seen() {
        assert_eq!(
            call("AboutToShow", (0i32,).to_variant()),
            Some(MenuSeen::Opened)
        );
        assert_eq!(call("AboutToShow", (7i32,).to_variant()), None, "a submenu");
        assert_eq!(
            call("AboutToShowGroup", (vec![3i32, 0],).to_variant()),
            Some(MenuSeen::Opened)
        );
        assert_eq!(call("AboutToShowGroup", (vec![3i32],).to_variant()), None);
        assert_eq!(call("Event", ev(0, "opened")), Some(MenuSeen::Opened));
        assert_eq!(call("Event", ev(0, "closed")), Some(MenuSeen::Closed));
        assert_eq!(
            call("Event", ev(4, "clicked")),
            None,
            "a click is the menu's own event"
        );
        assert_eq!(call("Event", ev(0, "hovered")), None);
        let group = (vec![
            event_of(0, "opened"),
            event_of(2, "clicked"),
            event_of(0, "closed"),
        ],)
            .to_variant();
        assert_eq!(group.type_().as_str(), "(a(isvu))");
        assert_eq!(call("EventGroup", group), Some(MenuSeen::Closed));
        assert_eq!(
            call(
                "GetLayout",
                (0i32, -1i32, Vec::<String>::new()).to_variant()
            ),
            None
        );
        assert_eq!(
            seen_in(
                Some("org.kde.StatusNotifierItem"),
                Some("AboutToShow"),
                Some(&(0i32,).to_variant())
            ),
            None
        );
        assert_eq!(
            call("AboutToShow", ("not an id",).to_variant()),
            None,
            "a body of another shape"
        );
        assert_eq!(seen_in(Some(DBUSMENU), Some("AboutToShow"), None), None);
    }
}
