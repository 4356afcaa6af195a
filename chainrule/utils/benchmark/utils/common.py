"""TaskSpec, Measurement and the number formatting helpers of torch.utils.benchmark
(torch/utils/benchmark/utils/common.py). PyTorch computes some statistics on float32
tensors (significant figures, unit selection, trimming); they are computed in float32 here
too, so the same times give the same report."""
import collections
import contextlib
import dataclasses
import textwrap

import numpy as np

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # 25 ns
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25
_f32 = np.float32


def log10_f32(x):
    """log10 of float32 `x`, correctly rounded to float32 (PyTorch computes these on float32
    tensors; NumPy's float32 log10 can be an ulp off)."""
    return _f32(np.log10(np.float64(_f32(x))))


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What a Timer measures (everything but its globals)."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self):
        """Best-effort label for the measurement."""
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        elif "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return (f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n"
                f"{textwrap.indent(self.stmt, '  ')}")

    def setup_str(self):
        return ("" if (self.setup == "pass" or not self.setup)
                else f"setup:\n{textwrap.indent(self.setup, '  ')}" if "\n" in self.setup
                else f"setup: {self.setup}")

    def summarize(self):
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join([f"{i}\n" if "\n" in i else i for i in sections if i])


_TASKSPEC_FIELDS = tuple(i.name for i in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The result of a Timer measurement: replicate times and their statistics."""
    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict | None = None

    def __post_init__(self):
        self._sorted_times = ()
        self._warnings = ()
        self._median = -1.0
        self._mean = -1.0
        self._p25 = -1.0
        self._p75 = -1.0

    def __getattr__(self, name):
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self):
        self._lazy_init()
        return self._median

    @property
    def mean(self):
        self._lazy_init()
        return self._mean

    @property
    def iqr(self):
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self):
        """Significant figures the interquartile spread supports (1 to 4)."""
        self._lazy_init()
        n_total = len(self._sorted_times)
        lower_bound = int(n_total // 4)
        upper_bound = int(np.ceil(_f32(3 * n_total / 4)))
        points = np.array(self._sorted_times[lower_bound:upper_bound], np.float32)
        std = float(points.std())
        sqrt_n = float(np.sqrt(_f32(len(points))))
        confidence_interval = max(1.645 * std / sqrt_n, _MIN_CONFIDENCE_INTERVAL)
        relative_ci = float(log10_f32(self._median / confidence_interval))
        num_significant_figures = int(np.floor(_f32(relative_ci)))
        return min(max(num_significant_figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self):
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self):
        if self.raw_times and not self._sorted_times:
            self._sorted_times = tuple(sorted(self.times))
            t = np.array(self._sorted_times, np.float64)
            self._median = float(np.quantile(t, 0.5))
            self._mean = float(t.mean())
            self._p25 = float(np.quantile(t, 0.25))
            self._p75 = float(np.quantile(t, 0.75))

            def add_warning(msg):
                rel_iqr = self.iqr / self.median * 100
                self._warnings += (f"  WARNING: Interquartile range is {rel_iqr:.1f}% "
                                   f"of the median measurement.\n           {msg}",)
            if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
                add_warning("This suggests significant environmental influence.")
            elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
                add_warning("This could indicate system fluctuation.")

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        return self.iqr / self.median < threshold

    @property
    def title(self):
        return self.task_spec.title

    @property
    def env(self):
        return "Unspecified env" if self.taskspec.env is None else self.taskspec.env

    @property
    def as_row_name(self):
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self):
        self._lazy_init()
        skip_line, newline = "MEASUREMENT_REPR_SKIP_LINE", "\n"
        n = len(self._sorted_times)
        time_unit, time_scale = select_unit(self._median)
        iqr_filter = "" if n >= 4 else skip_line
        repr_str = f"""
{super().__repr__()}
{self.task_spec.summarize()}
  {'Median: ' if n > 1 else ''}{self._median / time_scale:.2f} {time_unit}
  {iqr_filter}IQR:    {self.iqr / time_scale:.2f} {time_unit} ({self._p25 / time_scale:.2f} to {self._p75 / time_scale:.2f})
  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs {'per measurement,' if n > 1 else ','} {self.num_threads} thread{'s' if self.num_threads > 1 else ''}
{newline.join(self._warnings)}""".strip()  # noqa: E501
        return "\n".join(line for line in repr_str.splitlines(keepends=False)
                         if skip_line not in line)

    @staticmethod
    def merge(measurements):
        """Replicates of one task merged into one Measurement (times per run)."""
        grouped = collections.defaultdict(list)
        for m in measurements:
            grouped[m.task_spec].append(m)

        def merge_group(task_spec, group):
            times = []
            for m in group:
                times.extend(m.times)
            return Measurement(number_per_run=1, raw_times=times, task_spec=task_spec,
                               metadata=None)
        return [merge_group(t, g) for t, g in grouped.items()]


def select_unit(t):
    """The unit ('ns', 'us', 'ms', 's') and scale that bring `t` seconds to O(1)."""
    time_unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(float(log10_f32(t)) // 3), "s")
    time_scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[time_unit]
    return time_unit, time_scale


def unit_to_english(u):
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x, n):
    """`x` rounded to `n` significant figures (3.14159, 2 -> 3.1)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(np.ceil(log10_f32(np.abs(_f32(x)))))
    scale = 10 ** (magnitude - n)
    return float(np.round(_f32(x / scale)) * _f32(scale))


def ordered_unique(elements):
    return list(collections.OrderedDict(dict.fromkeys(elements)).keys())


@contextlib.contextmanager
def set_torch_threads(n):
    """Run the block with `n` intra-op threads (chainrule.set_num_threads)."""
    from ...._platform import get_num_threads, set_num_threads
    prior_num_threads = get_num_threads()
    try:
        set_num_threads(n)
        yield
    finally:
        set_num_threads(prior_num_threads)
