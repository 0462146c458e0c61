"""Random workspaces for the bench scripts: seed ranges as the command lines write them, and the workspace JSON of
../shared/tools/random_workspace.py for one seed (generated, never stored)."""
import json
import os
import subprocess
import sys


def seed_range(text):
    """'3,5,101-110' -> [3, 5, 101, ..., 110]."""
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def random_workspace(shared, seed, channels, bins, samples=None):
    """The generator's workspace (a dict) for `seed`, with its --channels/--bins (and --samples where given)."""
    cmd = [sys.executable, os.path.join(shared, "tools", "random_workspace.py"), str(seed),
           "--channels", str(channels), "--bins", str(bins)]
    if samples is not None:
        cmd += ["--samples", str(samples)]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
