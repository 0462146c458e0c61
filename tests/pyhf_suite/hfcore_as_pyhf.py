"""pytest plugin: pyhf 0.7.6's test suite run against the installed hfcore, with ``pyhf`` resolving to ``hfcore``.

Loaded by run.py with ``-p hfcore_as_pyhf`` and ``--noconftest``: it takes the place of pyhf's tests/conftest.py
(same fixtures, same markers) and, before any test module is imported, makes ``pyhf`` and every ``pyhf.X`` name
resolve to ``hfcore`` / ``hfcore.X``. The real pyhf (installed as a test dependency for the comparison tests of
tests/python) is never imported here: a ``pyhf.X`` that hfcore lacks is a ModuleNotFoundError naming hfcore.X.
"""

from __future__ import annotations

import collections
import importlib
import importlib.abc
import importlib.util
import json
import pathlib
import re
import shutil
import sys
import tarfile
import types

import pytest

AUTODIFF_REASON = "autodiff backend not in hfcore"
AUTODIFF_IDS = ("pytorch", "pytorch64", "tensorflow", "jax")
BACKEND_IDS = ("numpy", "pytorch", "pytorch64", "tensorflow", "jax", "numpy_minuit")
# The frameworks some of pyhf's test files import at module level, only for their framework's tests (which the
# backend fixture skips). Where one is not installed, a placeholder lets the file collect; any use of it raises.
AUTODIFF_MODULES = ("jax", "jax.numpy", "torch", "tensorflow", "tensorflow_probability")


class _HfcoreAsPyhf(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import pyhf.X`` gives the module object hfcore.X (the same object, not a copy)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "pyhf" and not fullname.startswith("pyhf."):
            return None
        real = "hfcore" + fullname[len("pyhf"):]
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as err:
            if err.name is not None and real.startswith(err.name):
                raise ModuleNotFoundError(f"No module named {fullname!r} (hfcore has no {real})",
                                          name=fullname) from None
            raise
        return importlib.util.spec_from_loader(fullname, self, is_package=hasattr(module, "__path__"))

    def create_module(self, spec):
        module = sys.modules["hfcore" + spec.name[len("pyhf"):]]
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module):
        # The import system set the alias's spec on the shared module object: give hfcore.X its own back.
        alias_spec = module.__spec__
        module.__spec__ = alias_spec.loader_state


def _placeholder(name):
    def fail(attr):
        raise ImportError(f"{name} is not installed ({AUTODIFF_REASON}); {name}.{attr} was used")

    module = types.ModuleType(name, f"placeholder: {name} is not installed")
    module.__getattr__ = fail
    return module


def install_alias():
    for name in [n for n in sys.modules if n == "pyhf" or n.startswith("pyhf.")]:
        del sys.modules[name]
    sys.meta_path.insert(0, _HfcoreAsPyhf())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """Placeholders for the frameworks a test file imports at module level, only while that file is imported:
    left in sys.modules they would fool libraries (scipy) that look there for torch or jax arrays."""
    added = []
    if isinstance(collector, pytest.Module):
        source = pathlib.Path(collector.path).read_text(encoding="utf-8")
        for name in AUTODIFF_MODULES:
            top = name.split(".")[0]
            if re.search(rf"^\s*(import|from) {re.escape(top)}\b", source, re.M) and name not in sys.modules:
                try:
                    importlib.import_module(name)
                except ImportError:
                    sys.modules[name] = _placeholder(name)
                    added.append(name)
    yield
    for name in added:
        del sys.modules[name]


install_alias()
import pyhf  # noqa: E402  (hfcore, through the alias)

assert pyhf.__name__ == "hfcore", pyhf


# ---- what pyhf's pyproject declares for its tests ----
def pytest_configure(config):
    for backend in BACKEND_IDS:
        for kind in ("fail", "skip", "only"):
            config.addinivalue_line("markers", f"{kind}_{backend}: pyhf's backend marker")
    config.stash[OUTCOMES] = collections.defaultdict(collections.Counter)
    config.stash[FAILED] = []


# ---- tests that need an autodiff framework ----
_AUTODIFF_MESSAGE = re.compile(r"hfcore has no '?(pytorch|jax|tensorflow)|" + re.escape(AUTODIFF_REASON))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that stops on hfcore's own error for a pytorch/jax/tensorflow backend (one it asks for by name,
    outside the backend fixture) needs an autodiff framework: reported as skipped with that reason, never as
    passed. Any other error stays a failure."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.excinfo is not None and not hasattr(report, "wasxfail"):
        exc = call.excinfo.value
        backend_error = isinstance(exc, (pyhf.exceptions.InvalidBackend, pyhf.exceptions.ImportBackendError,
                                         ImportError))
        # pyhf's tests of hiding a framework look it up in sys.modules first (KeyError where it is not there).
        missing_framework = isinstance(exc, KeyError) and exc.args and exc.args[0] in AUTODIFF_MODULES
        if (backend_error and _AUTODIFF_MESSAGE.search(str(exc))) or missing_framework:
            report.outcome = "skipped"
            report.longrepr = (str(item.path), item.location[1] or 0, f"Skipped: {AUTODIFF_REASON}: {exc}")


# ---- outcome per file, read by run.py ----
OUTCOMES = pytest.StashKey[dict]()
FAILED = pytest.StashKey[list]()


def pytest_runtest_logreport(report):
    config = _CONFIG[0]
    counts = config.stash[OUTCOMES][report.nodeid.split("::")[0]]
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        elif report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            outcome = "skipped_autodiff" if AUTODIFF_REASON in reason else "skipped"
        else:
            outcome = report.outcome if report.when == "call" else "error"
        counts[outcome] += 1
        if outcome in ("failed", "error", "xpassed"):
            config.stash[FAILED].append(report.nodeid)
    elif report.when == "teardown" and report.outcome == "failed":
        counts["error"] += 1
        config.stash[FAILED].append(report.nodeid + " (teardown)")


def pytest_collectreport(report):
    if report.failed:
        _CONFIG[0].stash[OUTCOMES][report.nodeid.split("::")[0]]["collection_error"] += 1
        _CONFIG[0].stash[FAILED].append(report.nodeid + " (collection)")


_CONFIG = []


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    _CONFIG.append(session.config)


def pytest_sessionfinish(session):
    out = session.config.getoption("--hfcore-outcomes", None)
    if out:
        pathlib.Path(out).write_text(json.dumps({
            "files": {k: dict(v) for k, v in session.config.stash[OUTCOMES].items()},
            "failed": session.config.stash[FAILED],
        }, indent=1))


def pytest_addoption(parser):
    parser.addoption("--hfcore-outcomes", default=None, help="write the outcome counts per file to this JSON file")


# ---- pyhf's conftest fixtures, on hfcore ----
@pytest.fixture
def get_json_from_tarfile():
    def _get_json_from_tarfile(archive_data_path, json_name):
        with tarfile.open(archive_data_path, "r:gz", encoding="utf-8") as archive:
            return json.loads(archive.extractfile(archive.getmember(json_name)).read().decode("utf8"))

    return _get_json_from_tarfile


@pytest.fixture(scope="function")
def isolate_modules():
    cached = sys.modules.copy()
    yield isolate_modules
    sys.modules.update(cached)


def _clear_events():
    # pyhf's module-level registries (module globals, so no name mangling applies).
    getattr(pyhf.events, "__events").clear()
    getattr(pyhf.events, "__disabled_events").clear()


@pytest.fixture(scope="function", autouse=True)
def reset_events():
    _clear_events()
    yield reset_events
    _clear_events()


@pytest.fixture(scope="function", autouse=True)
def reset_backend():
    pyhf.set_backend("numpy", default=True)
    yield reset_backend
    pyhf.set_backend("numpy", default=True)


def _backend_param(param_id):
    """The (tensorlib, optimizer) pair of pyhf's conftest for one id, built when the test runs (an optimizer
    hfcore lacks then fails that test, not the collection of every file)."""
    if param_id == "numpy":
        return (pyhf.tensor.numpy_backend(), None)
    if param_id == "numpy_minuit":
        return (pyhf.tensor.numpy_backend(poisson_from_normal=True), pyhf.optimize.minuit_optimizer())
    raise AssertionError(param_id)


@pytest.fixture(scope="function", params=BACKEND_IDS, ids=BACKEND_IDS)
def backend(request):
    param_id = request.param
    func_name = request._pyfuncitem.name
    skip_backend = request.node.get_closest_marker(f"skip_{param_id}")
    fail_backend = request.node.get_closest_marker(f"fail_{param_id}")
    only_backends = [pid for pid in BACKEND_IDS if request.node.get_closest_marker(f"only_{pid}")]
    if skip_backend and param_id in only_backends:
        raise ValueError(f"Must specify skip_{param_id} or only_{param_id} but not both!")
    if skip_backend:
        pytest.skip(f"skipping {func_name} as specified")
    elif only_backends and param_id not in only_backends:
        pytest.skip(f"skipping {func_name} as specified to only look at: {', '.join(only_backends)}")
    if param_id in AUTODIFF_IDS:
        pytest.skip(f"{param_id}: {AUTODIFF_REASON}")
    if fail_backend:
        request.node.add_marker(pytest.mark.xfail(reason=f"expect {func_name} to fail as specified"))
    param = _backend_param(param_id)
    pyhf.set_backend(*param)
    yield param


@pytest.fixture(scope="function", params=[0, 1, 2, 4],
                ids=["interpcode0", "interpcode1", "interpcode2", "interpcode4"])
def interpcode(request):
    yield request.param


def _link_target(file):
    """The file a git symlink points to, where the checkout holds the link as a one-line text file with the
    relative path (pyhf's tests/test_patchset/patchset_good.json -> ../test_schema/patchset_good.json)."""
    if file.stat().st_size > 512:
        return None
    try:
        text = file.read_text(encoding="utf-8").strip()
    except UnicodeDecodeError:
        return None
    if "\n" in text or not text.startswith(".."):
        return None
    target = (file.parent / text).resolve()
    return target if target.is_file() else None


@pytest.fixture(scope="function")
def datadir(tmp_path, request):
    """The test module's data folder copied into tmp_path, writable (the shared copy is read-only), with git
    symlinks resolved to their targets' contents."""
    test_dir = pathlib.Path(request.module.__file__).with_suffix("")
    if test_dir.is_dir():
        for src in test_dir.rglob("*"):
            dst = tmp_path / src.relative_to(test_dir)
            if src.is_dir():
                dst.mkdir(parents=True, exist_ok=True)
            else:
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(_link_target(src) or src, dst)
    return tmp_path
