#!/usr/bin/python3
"""Finds the shown top-level window titled TITLE on $DISPLAY (a Windows message box under
Wine's X11 driver), focuses it and presses Return (its OK) until the box is gone: a key
pressed before Wine took the focus change is lost, so it presses again every 0.5 s, at most
PRESSES times, and checks the box each time. Prints what it found.
Exit 0 when a window was found and closed by a press, 1 when none was shown within 60 s or
it was still shown after the last press.
Debian's python3-xlib (scripts/setup.sh --test); the XTEST extension of Xvfb.

    tests/windows/press_ok.py TITLE
"""
import sys
import time

from Xlib import X, XK, display
from Xlib.ext import xtest

WAIT_S = 60
PRESSES = 20


def titled(window, title):
    """The shown window under `window` (itself included) whose name is `title`, or None."""
    try:
        names = {window.get_wm_name(), window.get_full_text_property(
            window.display.get_atom("_NET_WM_NAME"), window.display.get_atom("UTF8_STRING"))}
        shown = window.get_attributes().map_state == X.IsViewable
        children = window.query_tree().children
    except Exception:  # a window gone while we look
        return None
    if shown and title in names:
        return window
    for child in children:
        found = titled(child, title)
        if found is not None:
            return found
    return None


def press_return(d, box):
    """Focuses `box` and presses and releases Return once."""
    box.set_input_focus(X.RevertToParent, X.CurrentTime)
    d.sync()
    key = d.keysym_to_keycode(XK.string_to_keysym("Return"))
    xtest.fake_input(d, X.KeyPress, key)
    xtest.fake_input(d, X.KeyRelease, key)
    d.sync()


def main():
    title = sys.argv[1]
    d = display.Display()
    deadline = time.monotonic() + WAIT_S
    box = None
    while box is None and time.monotonic() < deadline:
        box = titled(d.screen().root, title)
        if box is None:
            time.sleep(0.2)
    if box is None:
        print(f"press_ok: no window titled {title!r} was shown within {WAIT_S} s")
        return 1
    print(f"press_ok: a window titled {title!r} is shown: pressing Return until it closes")
    for press in range(1, PRESSES + 1):
        press_return(d, box)
        time.sleep(0.5)
        if titled(d.screen().root, title) is None:
            print(f"press_ok: closed after {press} press(es)")
            return 0
    print(f"press_ok: the window titled {title!r} was still shown after {PRESSES} presses")
    return 1


if __name__ == "__main__":
    sys.exit(main())
