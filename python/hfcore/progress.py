"""Progress bars for long calls (toys, scans, rankings, profile scans): the C++ engine reports
(done, total, label) as its work finishes, from whichever thread finished it, and this draws it.

Every long call takes ``progress`` (``track_progress`` for hypotest and limits, pyhf's name):

- ``None`` (default): a bar on standard error when it is a terminal, nothing otherwise (logs, pipes, batch jobs);
- ``True``: a bar wherever standard error goes (in a notebook, tqdm's widget when tqdm.auto finds one);
- ``False``: none;
- a callable ``f(done, total, label)``: called instead (total 0 when unknown).

The bar is tqdm's when tqdm is installed (``pip install "hfcore[progress]"``), else a one-line bar of its own.
"""

import contextlib
import sys
import threading
import time

__all__ = ["Progress", "reporting"]


class Progress:
    """Draws (done, total, label) reports as one bar named by the label (phases such as the signal-like and
    background-like toys share the count): tqdm's if installed, else a plain one-line bar on stderr."""

    def __init__(self, desc=None):
        self.desc = desc
        self._bar = None
        self._lock = threading.Lock()
        try:
            from tqdm.auto import tqdm
        except ImportError:
            tqdm = None
        self._tqdm = tqdm

    def __call__(self, done, total, label):
        name = f"{self.desc}: {label}" if self.desc and label and self.desc != label else (label or self.desc)
        with self._lock:
            if self._bar is None:
                self._bar = _Tqdm(self._tqdm, total) if self._tqdm is not None else _Line(total)
            self._bar.report(done, total, name)

    def close(self):
        with self._lock:
            if self._bar is not None:
                self._bar.close()
                self._bar = None


class _Tqdm:
    def __init__(self, tqdm, total):
        self.bar = tqdm(total=total if total > 0 else None, leave=False, dynamic_ncols=True)

    def report(self, done, total, name):
        if name != self.bar.desc:
            self.bar.set_description(name, refresh=False)
        if total > 0 and self.bar.total != total:
            self.bar.total = total
            self.bar.refresh()
        if done >= self.bar.n:
            self.bar.update(done - self.bar.n)
        else:  # the count started again (a new phase, or a ranking whose free fit improved)
            self.bar.reset(total=total if total > 0 else None)
            self.bar.update(done)

    def close(self):
        self.bar.close()


class _Line:
    """A one-line bar on stderr, redrawn at most ten times a second."""

    def __init__(self, total):
        self.total, self.start, self.last, self.drawn = total, time.monotonic(), 0.0, False

    def report(self, done, total, name):
        self.total = total if total > 0 else self.total
        now = time.monotonic()
        if now - self.last < 0.1 and not (self.total and done >= self.total):
            return
        self.last = now
        secs = now - self.start
        if self.total:
            frac = min(1.0, done / self.total)
            line = f"{name}: {int(100 * frac):3d}%|{'#' * int(30 * frac):<30}| {done}/{self.total} [{secs:.1f}s]"
        else:
            line = f"{name}: {done} [{secs:.1f}s]"
        sys.stderr.write("\r" + line + "\x1b[K")
        sys.stderr.flush()
        self.drawn = True

    def close(self):
        if self.drawn:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _stderr_is_terminal():
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def reporting(progress, desc=None):
    """The callback for a long call's ``progress`` argument (None when nothing is to be drawn); bars it made
    are closed when the call ends."""
    if progress is False or (progress is None and not _stderr_is_terminal()):
        yield None
        return
    if callable(progress) and progress is not True:
        yield progress
        return
    bars = Progress(desc)
    try:
        yield bars
    finally:
        bars.close()
