"""
hfcore's C++ engine (workspaces, models, fits, hypotests, limits) for the hfcore package
"""

from collections.abc import Sequence

import numpy
import numpy.typing


class Backend:
    """A loaded backend plugin instance."""

    @property
    def name(self) -> str: ...

    @property
    def device_name(self) -> str: ...

    @property
    def precision(self) -> str: ...

    @property
    def device(self) -> int: ...

    @property
    def description(self) -> str: ...

    def __repr__(self) -> str: ...

def load_backend(name: str, precision: str = '64b', device: int = 0, platform: int = 0, plugin_path: str = '') -> Backend: ...

def set_default_backend(backend: Backend) -> None: ...

def default_backend() -> Backend: ...

def plugin_search_path() -> list[str]: ...

def list_plugins() -> list: ...

class Workspace:
    """A validated workspace (use hfcore.Workspace)."""

    def __init__(self, spec: object, source: str = '<workspace>') -> None: ...

    @property
    def source(self) -> str: ...

    def prune(self, modifiers: object | None, modifier_types: object | None, samples: object | None, channels: object | None, measurements: object | None) -> object: ...

    def rename(self, modifiers: object | None, samples: object | None, channels: object | None, measurements: object | None) -> object: ...

    def sorted(self) -> object: ...

    @staticmethod
    def combine(left: Workspace, right: Workspace, join: str = 'none', merge_channels: bool = False) -> object: ...

def apply_patch(ops: object, doc: object, source: str = '<patch>') -> object:
    """A patched copy of doc (RFC 6902, as the jsonpatch package applies it)."""

def check_patchset(spec: object, source: str = '<patchset>') -> None:
    """
    Validates a patch set: InvalidSpecification for the schema, InvalidPatchSet for pyhf's rules.
    """

def check_schema(schema_name: str, doc: object, source: str = '<document>') -> None:
    """
    Checks doc against pyhf's schema schema_name (workspace.json, model.json, measurement.json, patchset.json, jsonpatch.json): InvalidSpecification with the JSON path where it does not follow it.
    """

class BoundLikelihood:
    """A model's likelihood bound to data once (Model.bind)."""

    def logpdf(self, pars: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]:
        """
        log-likelihood at pars ([P] or [K, P]) for the bound data: an array of shape (K,).
        """

class Model:
    """The compiled HistFactory model (use hfcore.Model)."""

    def __init__(self, spec: object, poi_name: str | None, normsys: str = 'code4', histosys: str = 'code4p', backend: object | None = None, source: str = '<model spec>') -> None: ...

    def logpdf(self, pars: numpy.typing.ArrayLike, data: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]:
        """
        log-likelihood at pars ([P] or [K, P]) for data ([N + A] or [K, N + A]): an array of shape (K,).
        """

    def bind(self, data: numpy.typing.ArrayLike) -> BoundLikelihood:
        """
        The likelihood bound to data ([N + A], or [K, N + A] for K points at once): uploaded once, then logpdf(pars) as often as needed.
        """

    def logpdf_and_grad(self, pars: numpy.typing.ArrayLike, data: numpy.typing.ArrayLike) -> tuple[numpy.typing.NDArray[numpy.float64], numpy.typing.NDArray[numpy.float64]]:
        """
        (logpdf, gradient of logpdf with respect to pars): shapes (K,) and (P,) or (K, P).
        """

    def expected_data(self, pars: numpy.typing.ArrayLike, include_auxdata: bool = True) -> numpy.typing.NDArray[numpy.float64]:
        """Expected main data (+ auxdata) at pars ([P] or [K, P])."""

    def expected_actualdata(self, pars: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]:
        """Expected main data at pars."""

    def expected_auxdata(self, pars: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]:
        """Expected auxiliary data at pars."""

class MinimizerReport:
    """
    How the minimiser reached a minimum (a fit's, or the totals over a test's fits).
    """

    @property
    def n_eval(self) -> int: ...

    @property
    def edm(self) -> float: ...

    @property
    def max_projected_gradient(self) -> float: ...

    @property
    def basin_candidates(self) -> int: ...

    @property
    def other_basin(self) -> bool: ...

class FitResult:
    """One fit: best-fit point, -2 log L, convergence and why."""

    @property
    def bestfit(self) -> object: ...

    @property
    def twice_nll(self) -> float: ...

    @property
    def converged(self) -> bool: ...

    @property
    def reason(self) -> str: ...

    @property
    def algorithm(self) -> str: ...

    @property
    def uncertainties(self) -> object: ...

    @property
    def correlations(self) -> object: ...

    @property
    def hessian_ok(self) -> bool: ...

    @property
    def minimizer(self) -> MinimizerReport: ...

    @property
    def basin_candidates(self) -> int:
        """
        Other starting points the basin search descended from (0 where the model cannot be multimodal).
        """

    @property
    def other_basin(self) -> bool:
        """The minimum came from another basin than the descent from the start's."""

    @property
    def n_eval(self) -> int: ...

    @property
    def edm(self) -> float: ...

    @property
    def max_projected_gradient(self) -> float: ...

class HypotestResult:
    """One hypothesis test (CLs or p0) with its fits."""

    @property
    def obs(self) -> float: ...

    @property
    def exp(self) -> object: ...

    @property
    def CLs_obs(self) -> float: ...

    @property
    def CLsb_obs(self) -> float: ...

    @property
    def CLb_obs(self) -> float: ...

    @property
    def CLs_exp(self) -> object: ...

    @property
    def CLsb_exp(self) -> object: ...

    @property
    def CLb_exp(self) -> object: ...

    @property
    def teststat(self) -> float: ...

    @property
    def q_obs(self) -> float: ...

    @property
    def q_asimov(self) -> float: ...

    @property
    def asimov_pars(self) -> object: ...

    @property
    def free_fit_to_data(self) -> object: ...

    @property
    def free_fit_to_asimov(self) -> object: ...

    @property
    def fixed_poi_fit_to_data(self) -> object: ...

    @property
    def fixed_poi_fit_to_asimov(self) -> object: ...

    @property
    def twice_nll_free(self) -> float: ...

    @property
    def converged(self) -> bool: ...

    @property
    def warnings(self) -> list[str]: ...

    @property
    def sb_teststats(self) -> object: ...

    @property
    def b_teststats(self) -> object: ...

    @property
    def toy_fits_batched(self) -> int: ...

    @property
    def toy_fits_fallback(self) -> int: ...

    @property
    def toy_fits_failed(self) -> int: ...

    @property
    def minimizer(self) -> MinimizerReport: ...

    @property
    def basin_candidates(self) -> int:
        """
        Other starting points the basin search descended from (0 where the model cannot be multimodal).
        """

    @property
    def other_basin(self) -> bool:
        """The minimum came from another basin than the descent from the start's."""

class UpperLimitResult:
    """Observed and expected upper limits and the hypotests run."""

    @property
    def obs(self) -> float: ...

    @property
    def exp(self) -> object: ...

    @property
    def scanned(self) -> list[float]: ...

    @property
    def results(self) -> list[HypotestResult]: ...

    @property
    def converged(self) -> bool: ...

    @property
    def bracket(self) -> tuple[float, float]: ...

    @property
    def poi_bounds_used(self) -> tuple[float, float]: ...

    @property
    def minimizer(self) -> MinimizerReport: ...

    @property
    def basin_candidates(self) -> int:
        """
        Other starting points the basin search descended from (0 where the model cannot be multimodal).
        """

    @property
    def other_basin(self) -> bool:
        """The minimum came from another basin than the descent from the start's."""

def fit(model: Model, data: object, init_pars: object | None = None, par_bounds: object | None = None, fixed_params: object | None = None, fixed_poi: float | None = None, uncertainties: bool = False, max_eval: int = 0, tolerance: float = 0.0) -> FitResult: ...

def test_statistic(name: str, mu: float, model: Model, data: object, init_pars: object | None = None, par_bounds: object | None = None, fixed_params: object | None = None) -> tuple: ...

def hypotest(poi_test: float, model: Model, data: object, init_pars: object | None = None, par_bounds: object | None = None, fixed_params: object | None = None, test_stat: str = 'qtilde', calctype: str = 'asymptotics', calc_base_dist: str = 'normal', ntoys: int = 2000, seed: int = 0, toy_batch: int = 1000, progress: object | None = None) -> HypotestResult: ...

def upper_limit(model: Model, data: object, level: float = 0.05, atol: float = 2e-12, rtol: float = 0.0001, low: float = 0.0, high: float = float('nan'), init_pars: object | None = None, par_bounds: object | None = None, fixed_params: object | None = None, test_stat: str = 'qtilde', calctype: str = 'asymptotics', calc_base_dist: str = 'normal', ntoys: int = 2000, seed: int = 0, toy_batch: int = 1000, progress: object | None = None) -> UpperLimitResult: ...

def upper_limit_scan(model: Model, data: object, scan: object, level: float = 0.05, init_pars: object | None = None, par_bounds: object | None = None, fixed_params: object | None = None, test_stat: str = 'qtilde', calctype: str = 'asymptotics', calc_base_dist: str = 'normal', ntoys: int = 2000, seed: int = 0, toy_batch: int = 1000, progress: object | None = None) -> UpperLimitResult: ...

def pulls(model: Model, data: object, init_pars: object | None = None, par_bounds: object | None = None, fixed_params: object | None = None, hessian_uncertainties: bool = False) -> object: ...

def ranking(model: Model, data: object, init_pars: object | None = None, par_bounds: object | None = None, fixed_params: object | None = None, poi_name: str | None = None, threads: int = 0, batched: bool = True, hessian_uncertainties: bool = False, progress: object | None = None) -> object: ...

def breakdown(model: Model, data: object, groups: Sequence[tuple[str, Sequence[str]]] | None = None, init_pars: object | None = None, par_bounds: object | None = None, fixed_params: object | None = None, poi_name: str | None = None, hessian_uncertainties: bool = False) -> object: ...

def yields(model: Model, data: object, postfit: bool = False, init_pars: object | None = None, par_bounds: object | None = None, fixed_params: object | None = None, hessian_uncertainties: bool = False) -> object: ...

def yield_tables(result: object, table_format: str = 'text', digits: int = 2, blinded_channels: Sequence[str] = []) -> str: ...

def profile_scan(model: Model, data: object, axes: Sequence[tuple[str, object]], init_pars: object | None = None, par_bounds: object | None = None, fixed_params: object | None = None, threads: int = 0, batched: bool = True, progress: object | None = None) -> object: ...

def minos(model: Model, data: object, names: Sequence[str], init_pars: object | None = None, par_bounds: object | None = None, fixed_params: object | None = None, threads: int = 0, batched: bool = True) -> object: ...

def goodness_of_fit(model: Model, data: object, init_pars: object | None = None, par_bounds: object | None = None, fixed_params: object | None = None) -> object: ...

def fit_toys(model: Model, data: object, poi_values: Sequence[float], ntoys: int = 1000, seed: int = 0, nuisance: str = 'nominal', aux: str = 'sampled', init_pars: object | None = None, par_bounds: object | None = None, fixed_params: object | None = None, toy_batch: int = 1000, threads: int = 1, progress: object | None = None) -> dict: ...

def scan(workspace: Workspace, patches: Sequence[tuple[str, object]], measurement_name: str | None = None, normsys: str = 'code4', histosys: str = 'code4p', poi_test: float = 1.0, upper_limit: bool = False, level: float = 0.05, rtol: float = 0.0001, threads: int = 0, backend: object | None = None, test_stat: str = 'qtilde', calctype: str = 'asymptotics', calc_base_dist: str = 'normal', ntoys: int = 2000, seed: int = 0, toy_batch: int = 1000, progress: object | None = None, journal: str | None = None, mpi: bool | None = None) -> object: ...

def mpi_compiled_in() -> bool: ...

def mpi_description() -> str: ...

def launched_by_mpi() -> bool: ...

def mpi_world(mpi: bool | None = None) -> tuple: ...
