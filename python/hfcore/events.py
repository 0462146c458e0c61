"""Named events with subscribers, as ``pyhf.events``: ``set_backend`` fires ``tensorlib_changed`` (and
``change_backend::before`` / ``::after``), so code that caches tensors per backend can follow the change.

Subscribers are held by weak reference (a bound method by its function and its object), so subscribing does not
keep an object alive. The registries are the module globals ``__events`` and ``__disabled_events``, the names
pyhf's tests and fixtures reset.
"""

from __future__ import annotations

import weakref
from functools import wraps

__all__ = ["Callables", "disable", "enable", "noop", "register", "subscribe", "trigger"]

__events = {}
__disabled_events = set()


def __dir__():
    return __all__


def noop(*args, **kwargs):
    """What ``trigger`` returns for an event nobody listens to, or one disabled."""


def _weak(callback):
    """(weak ref to the function, weak ref to the bound object or None)."""
    try:
        return weakref.ref(callback.__func__), weakref.ref(callback.__self__)
    except AttributeError:
        return weakref.ref(callback), None


def _alive(entry):
    func, owner = entry
    return func() is not None and (owner is None or owner() is not None)


class Callables:
    """The subscribers of one event; calling it calls each living one in order."""

    def __init__(self):
        self._callbacks = []

    @property
    def callbacks(self):
        self._callbacks = [c for c in self._callbacks if _alive(c)]
        return self._callbacks

    def append(self, callback):
        self._callbacks.append(_weak(callback))

    def __call__(self, *args, **kwargs):
        for func, owner in self.callbacks:
            if owner is None:
                func()(*args, **kwargs)
            else:
                func()(owner(), *args, **kwargs)

    def __iter__(self):
        return iter(self.callbacks)

    def __getitem__(self, index):
        return self.callbacks[index]

    def __len__(self):
        return len(self.callbacks)

    def __repr__(self):
        return f"Callables({self.callbacks})"


def subscribe(event):
    """Decorator: ``func`` is called whenever ``event`` is triggered."""

    def decorate(func):
        globals()["__events"].setdefault(event, Callables()).append(func)
        return func

    return decorate


def register(event):
    """Decorator: calls of ``func`` trigger ``{event}::before`` and ``{event}::after`` around it."""

    def decorate(func):
        @wraps(func)
        def wrapper(*args, **kwargs):
            trigger(f"{event}::before")()
            result = func(*args, **kwargs)
            trigger(f"{event}::after")()
            return result

        return wrapper

    return decorate


def trigger(event):
    """The subscribers of ``event`` as one callable (``noop`` when there are none or the event is disabled)."""
    events, disabled = globals()["__events"], globals()["__disabled_events"]
    if event in disabled or event not in events:
        return globals()["noop"]
    return events[event]


def disable(event):
    globals()["__disabled_events"].add(event)


def enable(event):
    globals()["__disabled_events"].remove(event)
