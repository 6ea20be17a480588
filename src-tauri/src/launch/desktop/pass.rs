//! A launch passes itself to the profile's running window before this process starts any
//! GTK, over the session bus, with bounds the single-instance plugin's own hand-over lacks:
//! the window must answer within [`ANSWER_MS`], and a window that lets go of the name
//! within [`KEPT_MS`] of taking the launch, or before it (its close was already on its
//! way), did not keep it, so the launch opens a window itself. The call is the plugin's (`org.SingleInstance.DBus.ExecuteCallback`
//! on the name `<Profile::window_bus_id>.SingleInstance`), so the running window's plugin
//! answers it; the plugin's own hand-over stays for a window that appears after this looked.

use gtk::gio;
use gtk::glib::{self, ToVariant};
use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::desktop::{Passed, ANSWER_MS, PASSED_ARG};

/// How long after a window took a launch its end still means it did not keep it, in ms: a
/// close already on its way is seen within a few ms (0 of 15 rounds at a 20 ms gap), and
/// a person does not close a window this soon after it was raised.
pub const KEPT_MS: u64 = 250;
/// GIO's words for a remote error saying the name has no owner (gio 0.18 binds no
/// `DBusError` to read the remote error's name from).
const GONE: [&str; 2] = [
    "GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown",
    "GDBus.Error:org.freedesktop.DBus.Error.NameHasNoOwner",
];
/// Bound on each question to the bus itself (who holds the name), in ms.
const BUS_MS: i32 = 1_000;

/// Passes this launch (`argv`, the program first) to the window holding `bus_id`'s name.
pub fn pass(bus_id: &str, mut argv: Vec<String>) -> Passed {
    let Some(bus) = session_bus() else {
        return Passed::NoWindow;
    };
    let name = format!("{bus_id}.SingleInstance");
    let Some(owner) = ask_bus(&bus, "GetNameOwner", &name, "(s)").and_then(|v| v.get::<String>())
    else {
        return Passed::NoWindow;
    };
    let pid = ask_bus(&bus, "GetConnectionUnixProcessID", &owner, "(u)").and_then(|v| v.get());
    argv.push(PASSED_ARG.into());
    let ctx = glib::MainContext::new();
    let pushed = ctx.with_thread_default(|| {
        // Subscribed before the call, so an end that follows the answer is never missed.
        let left = Rc::new(Cell::new(false));
        let seen = left.clone();
        let holder = owner.clone();
        let watch = bus.signal_subscribe(
            Some("org.freedesktop.DBus"),
            Some("org.freedesktop.DBus"),
            Some("NameOwnerChanged"),
            Some("/org/freedesktop/DBus"),
            Some(&name),
            gio::DBusSignalFlags::NONE,
            move |_, _, _, _, _, args| {
                let changed: Option<(String, String, String)> = args.get();
                if changed.is_some_and(|(_, old, _)| old == holder) {
                    seen.set(true);
                }
            },
        );
        // To the window that holds the name now, by its own connection: never another.
        let out = match call(&bus, &owner, &name, argv) {
            Ok(()) if left_within(&ctx, &left, KEPT_MS) || !holds(&bus, &name, &owner) => {
                Passed::Dropped("it closed as it took the launch".into())
            }
            Ok(()) => Passed::Taken,
            Err(e) if e.matches(gio::IOErrorEnum::TimedOut) => Passed::Unanswered(pid),
            // It went before the call reached it: nobody holds the name for it now.
            Err(e) if GONE.iter().any(|g| e.message().starts_with(g)) => Passed::NoWindow,
            Err(e) => Passed::Dropped(e.message().to_string()),
        };
        #[allow(deprecated)] // the replacement (0.19's `SignalSubscription`) is not in gio 0.18
        bus.signal_unsubscribe(watch);
        out
    });
    pushed.unwrap_or(Passed::NoWindow)
}

/// A private connection to the session bus the plugin uses (`DBUS_SESSION_BUS_ADDRESS`,
/// else `$XDG_RUNTIME_DIR/bus`); `None` without one. Never GIO's shared connection, which
/// would start a bus of its own (`dbus-launch`) where there is none.
fn session_bus() -> Option<gio::DBusConnection> {
    let address = std::env::var("DBUS_SESSION_BUS_ADDRESS")
        .ok()
        .filter(|a| !a.is_empty())
        .or_else(|| {
            let socket = std::path::Path::new(&std::env::var_os("XDG_RUNTIME_DIR")?).join("bus");
            socket
                .exists()
                .then(|| format!("unix:path={}", socket.display()))
        })?;
    gio::DBusConnection::for_address_sync(
        &address,
        gio::DBusConnectionFlags::AUTHENTICATION_CLIENT
            | gio::DBusConnectionFlags::MESSAGE_BUS_CONNECTION,
        None,
        gio::Cancellable::NONE,
    )
    .ok()
}

/// Whether `owner` still holds `name` (asked of the bus after the answer: an end that came
/// before the watch was subscribed is seen here).
fn holds(bus: &gio::DBusConnection, name: &str, owner: &str) -> bool {
    ask_bus(bus, "GetNameOwner", name, "(s)")
        .and_then(|v| v.get::<String>())
        .is_some_and(|now| now == owner)
}

/// The plugin's method, as its own hand-over calls it: `(argv, cwd)`, answered empty; sent
/// to `owner`, at the plugin's object path for `name`.
fn call(
    bus: &gio::DBusConnection,
    owner: &str,
    name: &str,
    argv: Vec<String>,
) -> Result<(), glib::Error> {
    let cwd = std::env::current_dir()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let path = format!("/{}", name.replace('.', "/").replace('-', "_"));
    bus.call_sync(
        Some(owner),
        &path,
        "org.SingleInstance.DBus",
        "ExecuteCallback",
        Some(&(argv, cwd).to_variant()),
        None,
        gio::DBusCallFlags::NO_AUTO_START,
        ANSWER_MS,
        gio::Cancellable::NONE,
    )
    .map(drop)
}

/// One question to the bus daemon about `arg`, answered within [`BUS_MS`]: the reply's
/// first value, or `None` (no such name, or no answer).
fn ask_bus(bus: &gio::DBusConnection, method: &str, arg: &str, ty: &str) -> Option<glib::Variant> {
    bus.call_sync(
        Some("org.freedesktop.DBus"),
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus",
        method,
        Some(&(arg,).to_variant()),
        Some(glib::VariantTy::new(ty).ok()?),
        gio::DBusCallFlags::NONE,
        BUS_MS,
        gio::Cancellable::NONE,
    )
    .ok()
    .map(|v| v.child_value(0))
}

/// Whether `left` is set (the window let go of the name) within `ms`, dispatching `ctx`'s
/// signals meanwhile.
fn left_within(ctx: &glib::MainContext, left: &Rc<Cell<bool>>, ms: u64) -> bool {
    let over = Arc::new(AtomicBool::new(false));
    let set = over.clone();
    let timer = glib::timeout_source_new(
        Duration::from_millis(ms),
        None,
        glib::Priority::DEFAULT,
        move || {
            set.store(true, Ordering::SeqCst);
            glib::ControlFlow::Break
        },
    );
    timer.attach(Some(ctx));
    while !left.get() && !over.load(Ordering::SeqCst) {
        ctx.iteration(true);
    }
    timer.destroy();
    left.get()
}
