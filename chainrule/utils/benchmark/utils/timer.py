"""Timer: torch.utils.benchmark.Timer (torch/utils/benchmark/utils/timer.py) for chainrule.
It times Python statements with timeit, runs them with `num_threads` intra-op threads
(chainrule.set_num_threads), and returns Measurements. C++ statements and Callgrind
instruction counts need PyTorch's toolchain and are not available."""
import enum
import textwrap
import timeit

import numpy as np

from . import common

__all__ = ["Timer", "timer", "Language"]


def timer():
    """The clock Timer uses: timeit.default_timer (no accelerator to synchronize)."""
    return timeit.default_timer()


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


class Timer:
    """Measure the execution time of a statement: `timeit` for a fixed number of runs,
    `blocked_autorange` for replicates in blocks, `adaptive_autorange` until the spread is
    small. `torch` in the statement's globals is chainrule."""
    _timer_cls = timeit.Timer

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None,
                 label=None, sub_label=None, description=None, env=None, num_threads=1,
                 language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._globals = dict(globals or {})
        if language in (Language.PYTHON, "py", "python"):
            import chainrule
            self._globals.setdefault("torch", chainrule)
            self._language = Language.PYTHON
            if global_setup:
                raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely "
                                 "this code can simply be moved to `setup`.")
        elif language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError("chainrule's Timer times Python statements only: C++ "
                                      "timing compiles against PyTorch's C++ library")
        else:
            raise ValueError(f"Invalid language `{language}`.")
        stmt = textwrap.dedent(stmt)
        stmt = (stmt[1:] if stmt and stmt[0] == "\n" else stmt).rstrip()
        setup = textwrap.dedent(setup)
        setup = (setup[1:] if setup and setup[0] == "\n" else setup).rstrip()
        self._timer = self._timer_cls(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup,
                                          label=label, sub_label=sub_label,
                                          description=description, env=env,
                                          num_threads=num_threads)

    def _timeit(self, number):
        # Even calling a timer in C++ takes ~50 ns, so no real operation should take 1 ns
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number=1000000):
        """Time `number` runs of the statement (after a warmup of number // 100)."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            return common.Measurement(number_per_run=number,
                                      raw_times=[self._timeit(number=number)],
                                      task_spec=self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _threaded_measurement_loop(self, number, time_hook, stop_hook, min_run_time,
                                   max_run_time=None, callback=None):
        total_time = 0.0
        can_stop = False
        times = []
        with common.set_torch_threads(self._task_spec.num_threads):
            while (total_time < min_run_time) or (not can_stop):
                time_spent = time_hook()
                times.append(time_spent)
                total_time += time_spent
                if callback:
                    callback(number, time_spent)
                can_stop = stop_hook(times)
                if max_run_time and total_time > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time):
        with common.set_torch_threads(self._task_spec.num_threads):
            # the block size that makes the timer's own overhead negligible (also a warmup);
            # PyTorch takes the median of five float32 timings
            overhead = float(np.float32(sorted(
                np.float32(self._timeit(0)) for _ in range(5))[2]))
            number = 1
            while True:
                time_taken = self._timeit(number)
                relative_overhead = overhead / time_taken
                if relative_overhead <= 1e-4 and time_taken >= min_run_time / 1000:
                    break
                if time_taken > min_run_time:
                    break
                if number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Replicates of a block of runs (the block sized so timer overhead is negligible)
        until `min_run_time` seconds have been measured."""
        number = self._estimate_block_size(min_run_time)
        times = self._threaded_measurement_loop(number, lambda: self._timeit(number),
                                                lambda times: True, min_run_time=min_run_time,
                                                callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None):
        """Like blocked_autorange, but runs until the IQR / median is below `threshold`
        (at least 4 replicates and min_run_time; at most max_run_time)."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop_hook(times):
            if len(times) > 3:
                return common.Measurement(number_per_run=number, raw_times=times,
                                          task_spec=self._task_spec
                                          ).meets_confidence(threshold=threshold)
            return False
        times = self._threaded_measurement_loop(number, lambda: self._timeit(number), stop_hook,
                                                min_run_time, max_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)
