#!/usr/bin/python3
"""What a desktop provides on the session bus, recorded for the app's end-to-end tests.

  org.freedesktop.Notifications   records every Notify call as one JSON line in LOG
  org.kde.StatusNotifierWatcher   records every tray item that registers (a tray host)

Each record is a JSON object on its own line of LOG (with "t", the wall-clock time in s):
  {"kind": "notify", "id": 1, "app_name": ..., "summary": ..., "body": ..., "actions": [...]}
  {"kind": "tray_item", "service": ":1.5", "path": "/org/ayatana/NotificationItem/..."}

The test side asks the fake notification daemon to act like a person clicking a
notification through the extra method org.sendledger.Test.Invoke(id, action_key), which
emits the standard ActionInvoked signal.

    python3 fake_desktop.py LOG [--no-tray-host]   # prints "ready" once its names are owned

Without the tray host the app's indicator falls back to an XEmbed icon, which a real
system tray (trayer) then shows.
"""
import json
import sys
import time

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NOTIFY_IFACE = "org.freedesktop.Notifications"
WATCHER_IFACE = "org.kde.StatusNotifierWatcher"
TEST_IFACE = "org.sendledger.Test"


class Recorder:
    def __init__(self, path):
        self.file = open(path, "a", buffering=1)

    def write(self, record):
        record["t"] = time.time()
        self.file.write(json.dumps(record) + "\n")


class Notifications(dbus.service.Object):
    def __init__(self, bus, recorder):
        self.bus_name = dbus.service.BusName(NOTIFY_IFACE, bus)
        super().__init__(self.bus_name, "/org/freedesktop/Notifications")
        self.recorder = recorder
        self.next_id = 1

    @dbus.service.method(NOTIFY_IFACE, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app_name, replaces_id, icon, summary, body, actions, hints, timeout):
        nid = self.next_id
        self.next_id += 1
        self.recorder.write(
            {
                "kind": "notify",
                "id": nid,
                "app_name": str(app_name),
                "icon": str(icon),
                "summary": str(summary),
                "body": str(body),
                "actions": [str(a) for a in actions],
            }
        )
        return dbus.UInt32(nid)

    @dbus.service.method(NOTIFY_IFACE, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["actions", "body"]

    @dbus.service.method(NOTIFY_IFACE, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("sendledger-e2e-recorder", "sendledger", "1", "1.2")

    @dbus.service.method(NOTIFY_IFACE, in_signature="u", out_signature="")
    def CloseNotification(self, nid):
        self.NotificationClosed(nid, dbus.UInt32(3))

    @dbus.service.signal(NOTIFY_IFACE, signature="uu")
    def NotificationClosed(self, nid, reason):
        pass

    @dbus.service.signal(NOTIFY_IFACE, signature="us")
    def ActionInvoked(self, nid, action_key):
        pass

    @dbus.service.method(TEST_IFACE, in_signature="us", out_signature="")
    def Invoke(self, nid, action_key):
        self.ActionInvoked(dbus.UInt32(nid), action_key)


class Watcher(dbus.service.Object):
    def __init__(self, bus, recorder):
        self.bus_name = dbus.service.BusName(WATCHER_IFACE, bus)
        super().__init__(self.bus_name, "/StatusNotifierWatcher")
        self.recorder = recorder
        self.items = []

    @dbus.service.method(WATCHER_IFACE, in_signature="s", out_signature="", sender_keyword="sender")
    def RegisterStatusNotifierItem(self, service, sender=None):
        service = str(service)
        if service.startswith("/"):
            bus_name, path = sender, service
        else:
            bus_name, path = service, "/StatusNotifierItem"
        self.items.append(f"{bus_name}{path}")
        self.recorder.write({"kind": "tray_item", "service": str(bus_name), "path": path})
        self.StatusNotifierItemRegistered(f"{bus_name}{path}")

    @dbus.service.method(WATCHER_IFACE, in_signature="s", out_signature="")
    def RegisterStatusNotifierHost(self, service):
        pass

    @dbus.service.signal(WATCHER_IFACE, signature="s")
    def StatusNotifierItemRegistered(self, item):
        pass

    @dbus.service.signal(WATCHER_IFACE, signature="")
    def StatusNotifierHostRegistered(self):
        pass

    def props(self):
        return {
            "RegisteredStatusNotifierItems": dbus.Array(self.items, signature="s"),
            "IsStatusNotifierHostRegistered": dbus.Boolean(True),
            "ProtocolVersion": dbus.Int32(0),
        }

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, iface, prop):
        return self.props()[str(prop)]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, iface):
        return self.props()


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    recorder = Recorder(sys.argv[1])
    keep = [Notifications(bus, recorder)]
    if "--no-tray-host" not in sys.argv:
        keep.append(Watcher(bus, recorder))
    print("ready", flush=True)
    GLib.MainLoop().run()
    del keep


if __name__ == "__main__":
    main()
