"""Compare: many Measurements as one text table per label, laid out as PyTorch's Compare lays
them out (rows per statement and thread count, a column per description, the same number
formats, separators and colours), so the printed tables are the same."""
import enum

import numpy as np

from . import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"

_HIGH_VARIANCE = "(! XX%) Measurement has high variance, where XX is the IQR / median * 100."


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


class Compare:
    """Displays many measurements as formatted tables (one per label): a row per sub-label
    and thread count, a column per description. Print it, or take str() of it."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self):
        merged = common.Measurement.merge(self._results)
        by_label = {}
        for m in merged:
            by_label.setdefault(m.label, []).append(m)
        return "\n".join(self._table(group) for group in by_label.values())

    def extend_results(self, results):
        """Append results to the stored ones; each must be a Measurement."""
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        """Print each number to the significant figures its measurement supports."""
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        """Colour each time against the best of its column (or of its row)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        """Mark measurements whose spread is high with (! XX%)."""
        self._highlight_warnings = True

    def print(self):
        print(str(self))

    # -- one table ------------------------------------------------------------------------

    def _table(self, results):
        unit, scale = common.select_unit(min(m.median for m in results))
        # rows: (threads, env, name) in first-seen order, then grouped by threads and env
        row_keys = common.ordered_unique([(m.num_threads, m.env, m.as_row_name)
                                          for m in results])
        row_keys.sort(key=lambda k: k[:2])
        col_keys = common.ordered_unique([m.description for m in results])
        grid = {(m.num_threads, m.env, m.as_row_name, m.description): m for m in results}
        cells = [[grid.get((*rk, ck)) for ck in col_keys] for rk in row_keys]

        # a row group is a run of rows with the same thread count
        groups, starts = [], []
        for i, rk in enumerate(row_keys):
            if i == 0 or rk[0] != row_keys[i - 1][0]:
                starts.append(i)
            groups.append(len(starts) - 1)
        formats = [self._column_format([row[j] for row in cells], scale)
                   for j in range(len(col_keys))]

        envs = {m.env for m in results}
        env_width = max(len(e) for e in envs) if len(envs) > 1 else 0
        text = [[""] + col_keys]
        for i, (rk, row) in enumerate(zip(row_keys, cells)):
            prior_env = "" if i in starts else row_keys[i - 1][1]
            env = f"({rk[1]})" if len(envs) > 1 and rk[1] != prior_env else ""
            first = next(m for m in row if m is not None)
            line = ["  " + env.ljust(env_width + 4) + first.as_row_name]
            for m, fmt in zip(row, formats):
                if m is None:
                    line.append(fmt(None, 1, None))
                else:
                    line.append(fmt(m.median / scale, m.significant_figures,
                                    m.iqr / m.median if m.has_warnings else None))
            text.append(line)
        width = max(len(r) for r in text)
        for r in text:
            r.extend([""] * (width - len(r)))
        widths = [max(len(c) for c in col) for col in zip(*text)]

        header = "  |  ".join(c.center(w) for c, w in zip(text[0], widths))
        lines = [header]
        for i, (row, strings) in enumerate(zip(cells, text[1:])):
            if i in starts:
                lines.append(f"{row_keys[i][0]} threads: ".ljust(len(header), "-"))
            best = self._best(row, [[cells[k][j] for k in range(len(cells))
                                     if groups[k] == groups[i]] for j in range(len(col_keys))])
            out = [strings[0].ljust(widths[0])]
            for s, w, m, b in zip(strings[1:], widths[1:], row, best):
                s = s.center(w)
                if self._colorize != Colorize.NONE and m is not None and b is not None:
                    s = _colour(s, m.median, b)
                out.append(s)
            lines.append("  |  ".join(out))

        label = results[0].label
        title = f" {label or ''} ".center(len(header) - 2, "-")
        warned = self._highlight_warnings and any(m.has_warnings for m in results)
        return (f"[{title}]\n" + "\n".join(lines) + "\n\n"
                f"Times are in {common.unit_to_english(unit)}s ({unit}).\n"
                + (_HIGH_VARIANCE + "\n" if warned else ""))

    def _column_format(self, column, scale):
        """A function (value, significant figures, spread) -> the column's cell text: every
        cell right-aligned to the column's widest integer part, with one decimal, or with
        as many as the least precise measurement supports when trimming."""
        present = [m for m in column if m is not None]
        highlight = self._highlight_warnings and any(m.has_warnings for m in present)
        digits = [int(np.ceil(common.log10_f32(m.median / scale))) for m in present]
        decimals = (min(max(m.significant_figures - d, 0) for d, m in zip(digits, present))
                    if self._trim_significant_figures else 1)
        length = max(digits) + decimals + (1 if decimals else 0)
        trim = self._trim_significant_figures

        def fmt(value, sigfigs, spread):
            if value is None:
                return " " * len(fmt(1, sigfigs, None))
            if trim:
                value = common.trim_sigfig(value, sigfigs)
            note = f" (! {spread * 100:.0f}%)" if highlight and spread is not None else ""
            return f"{value:>{length}.{decimals}f}" + (f"{note:>7}" if highlight else note)
        return fmt

    def _best(self, row, columns_in_group):
        """The time each cell of `row` is coloured against (None: no colour)."""
        if self._colorize == Colorize.ROWWISE:
            low = min(m.median for m in row if m is not None)
            return [low] * len(row)
        if self._colorize == Colorize.COLUMNWISE:
            return [min((m.median for m in col if m is not None), default=None)
                    for col in columns_in_group]
        return [None] * len(row)


def _colour(segment, value, best):
    if value <= best * 1.01 or value <= best + 100e-9:
        return BEST + BOLD + segment + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + segment + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + segment + TERMINATE * 2
    if value >= best * 2:
        return BAD + segment + TERMINATE * 2
    return segment
