"""Make lightkube safe to use from several threads at once.

lightkube decodes API objects into `msgspec.Struct` classes. msgspec builds each class's
type information on first use and publishes it on the class *before* it is complete (so
recursive types can refer to themselves), and building it calls back into Python, where
the GIL can pass to another thread. A second thread decoding the same class for the first
time then reads the half-built information and the interpreter segfaults (four threads
decoding one Deployment at once crash it every time, msgspec 0.19 to 0.22).

The fix is to build the information for every resource, its list model and the kubeconfig
and status models on one thread, before any worker thread starts. It takes ~0.2 s, once
per process. `Cluster.client()` calls it, so clients made there are safe on any thread.
"""

import importlib
import pkgutil
import threading

import msgspec

_lock = threading.Lock()
_done = False


def _struct_types() -> list[type]:
    import lightkube.config.models
    import lightkube.resources
    from lightkube.core import decoders
    from lightkube.models import meta_v1

    found: list[type] = [meta_v1.Status, decoders.WatchEvent]
    modules = [lightkube.config.models] + [
        importlib.import_module(f"lightkube.resources.{m.name}")
        for m in pkgutil.iter_modules(lightkube.resources.__path__)
    ]
    for module in modules:
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, msgspec.Struct)
                and value.__module__ == module.__name__
            ):
                found.append(value)
                if module is not lightkube.config.models:
                    found.append(decoders._get_list_model(value)[0])
    return found


def prepare_for_threads() -> None:
    """Build msgspec's type information for all lightkube models; call before starting
    threads that use lightkube. Idempotent and cheap after the first call."""
    global _done
    with _lock:
        if _done:
            return
        for struct in _struct_types():
            msgspec.json.Decoder(struct)
        _done = True
