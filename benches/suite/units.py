#!/usr/bin/env python3
"""Counts the compile units a sequence of cargo commands needs from an empty target/:
each command's --unit-graph (RUSTC_BOOTSTRAP=1), a unit identified as cargo's metadata
hash does (package, target, mode, features, profile without its name, platform, and its
dependencies' identities), and how many units no earlier command of the sequence built.
  units.py FILE   (one command a line, VAR=value prefixes allowed, # comments)"""
import json, os, subprocess, sys, shlex, hashlib
def graph(parts, env):
    e = dict(os.environ, RUSTC_BOOTSTRAP="1", **env)
    out = subprocess.run(parts + ["--unit-graph", "-Z", "unstable-options"], env=e, capture_output=True, text=True)
    if out.returncode: sys.exit(out.stderr)
    return json.loads(out.stdout)["units"]
def ids(units, flags):
    memo = {}
    def ident(i):
        if i not in memo:
            u = units[i]
            prof = {k: v for k, v in u["profile"].items() if k != "name"}
            deps = sorted(ident(d["index"]) for d in u["dependencies"])
            own = [u["pkg_id"], u["target"]["name"], u["target"]["kind"], u["mode"], u["features"], prof, u.get("platform"), flags if u.get("platform") else "", deps]
            memo[i] = hashlib.sha1(json.dumps(own, sort_keys=True).encode()).hexdigest()
        return memo[i]
    return {ident(i): units[i] for i in range(len(units))}
seen = {}; total_new = 0
for line in open(sys.argv[1]):
    line = line.strip()
    if not line or line.startswith("#"): continue
    parts = shlex.split(line); env = {}
    while "=" in parts[0]:
        k, v = parts.pop(0).split("=", 1); env[k] = v
    flags = " ".join(v for k, v in sorted(env.items()) if "RUSTFLAGS" in k)
    us = ids(graph(parts, env), flags)
    new = {k: u for k, u in us.items() if k not in seen}
    seen.update(new)
    comp = sum(1 for u in new.values() if u["mode"] != "run-custom-build")
    print(f"{len(us):4} units, {comp:4} new compiles  {line[:110]}")
c = sum(1 for u in seen.values() if u["mode"] != "run-custom-build")
print(f"compiles in all (build scripts' runs not counted): {c}")
print(f"  of which link an executable (bins, tests): {sum(1 for u in seen.values() if u['mode'] == 'test' or (u['mode']=='build' and u['target']['kind'] in (['bin'],['test'])))}")
