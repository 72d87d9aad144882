"""numba's ``njit``, deferred to a kernel's first call.

Importing numba and loading its cached kernels costs about 0.7 s a process (0.36 s for the
import, the rest for its registries and cache on the first call), which is more than the
whole of a small GOPS run (those run on numpy, ``gops/game/lanes.py``) and of a rerun that
finds its store finished, yet every command of a family imports its kernels.  So a function
decorated here stays plain Python until a kernel is first called: then numba is imported,
every deferred function is handed to ``numba.njit`` with its own options, and every module
namespace that names a deferred function (a kernel's globals, which numba resolves when it
compiles) is rebound to the compiled one.  Callers that imported a deferred function by name
keep a forwarder.  ``py_func`` is the Python function, as on a numba dispatcher.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any, Callable

_deferred: list["Deferred"] = []
_compiling = threading.Lock()  # threads of one worker may make the first call together
_ready = False  # every deferred function compiled and every namespace rebound


class Deferred:
    """A function that ``numba.njit(**options)`` compiles when a kernel is first called."""

    def __init__(self, func: Callable, options: dict[str, Any]):
        self.py_func = func
        self.options = options
        self.compiled: Callable | None = None
        self.__name__ = func.__name__
        self.__qualname__ = func.__qualname__
        self.__doc__ = func.__doc__
        self.__module__ = func.__module__
        self.__wrapped__ = func

    def __call__(self, *args, **kwargs):
        if not _ready:
            compile_all()
        return self.compiled(*args, **kwargs)

    def __reduce__(self):  # pickled by name, as functions are (Dask ships callables)
        return _named, (self.__module__, self.__qualname__)


def _named(module: str, name: str):
    """The module's function of that name (a Deferred or, once compiled, numba's)."""
    return getattr(importlib.import_module(module), name)


def njit(*args, **options):
    """``@njit``, ``@njit(cache=True, ...)``: as numba's, compiled on first use."""
    if args and callable(args[0]) and not options:
        return njit()(args[0])
    if args:  # a signature would be dropped: compilation here is always lazy
        raise TypeError("subgame.jit.njit takes no signature, only numba's options")

    def defer(func: Callable):
        if _ready:  # numba is loaded already: compile as numba would
            import numba

            return numba.njit(**options)(func)
        entry = Deferred(func, options)
        _deferred.append(entry)
        return entry

    return defer


def _literal_unroll(container):
    """numba's ``literal_unroll``: in compiled code a loop over a heterogeneous tuple, its
    body compiled once for each item's type; in Python the tuple itself."""
    return container


# Deferred too, so that a kernel module can name it without importing numba; compile_all
# binds numba's own (the "numba" option names it) in place of a compiled function.
literal_unroll = Deferred(_literal_unroll, {"numba": "literal_unroll"})
_deferred.append(literal_unroll)


def compile_all() -> None:
    """Hand every deferred function to numba and rebind the namespaces that name them."""
    global _ready
    with _compiling:
        if _ready:
            return
        import numba

        for entry in _deferred:
            if entry.compiled is None:
                name = entry.options.get("numba")
                entry.compiled = getattr(numba, name) if name else \
                    numba.njit(**entry.options)(entry.py_func)
        namespaces = {id(e.py_func.__globals__): e.py_func.__globals__ for e in _deferred}
        for namespace in namespaces.values():
            for name, value in list(namespace.items()):
                if isinstance(value, Deferred):
                    namespace[name] = value.compiled
        _ready = True
