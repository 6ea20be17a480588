#!/usr/bin/python3
"""Runs the app's end-to-end tests (test_app.py, test_decisions.py; test_package.py too when
SENDLEDGER_APP_BINARY is the installed package's window, which it removes) one by one with a fresh fake desktop each,
prints `ok`/`FAILED` per test and closes with `N passed, N failed`. Exit status 1 on any
failure. Must run inside a display and a session bus (scripts/test-app.sh sets both up).

    python3 e2e/app/run.py [NAME-SUBSTRING ...]
"""
import sys
import time
import traceback

import test_app
import test_decisions
import test_package
from harness import APP, Desktop, Profile


def main(filters):
    every = test_app.TESTS + test_decisions.TESTS
    if APP.startswith("/usr/bin/"):
        every = every + test_package.TESTS
    tests = [t for t in every if not filters or any(f in t.__name__ for f in filters)]
    passed = failed = 0
    for t in tests:
        desktop = Desktop(**getattr(t, "desktop", {}))
        Profile.made.clear()
        start = time.monotonic()
        try:
            t(desktop)
            passed += 1
            print(f"ok      {t.__name__} ({time.monotonic() - start:.1f} s)", flush=True)
        except Exception:
            failed += 1
            print(f"FAILED  {t.__name__}", flush=True)
            traceback.print_exc()
            for p in Profile.made:
                print(p.log_tails(), flush=True)
        finally:
            for p in Profile.made:
                if (pid := p.end_a_tray_left_running()) is not None:
                    print(f"        (ended tray {pid}, left running by {t.__name__})", flush=True)
            desktop.close()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not tests else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
