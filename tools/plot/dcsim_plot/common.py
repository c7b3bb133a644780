"""Shared helpers of dcsim-plot: errors that name the file and line, CSV reading, time axes,
atomic PNG + PDF output."""

import csv
import os
import sys


def fail(message):
    print(f"dcsim-plot: {message}", file=sys.stderr)
    sys.exit(1)


def read_columns(path, required):
    """Reads a CSV with a header into {column: [float, ...]}, checking every value."""
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                fail(f"{path}: empty file, expected a header line")
            missing = [c for c in required if c not in header]
            if missing:
                fail(f"{path}: line 1: missing column(s) {', '.join(missing)}; found {', '.join(header)}")
            columns = {name: [] for name in header}
            for line_number, row in enumerate(reader, start=2):
                if len(row) != len(header):
                    fail(f"{path}: line {line_number}: expected {len(header)} fields, found {len(row)}")
                for name, value in zip(header, row):
                    try:
                        columns[name].append(float(value) if value != "" else float("nan"))
                    except ValueError:
                        fail(f"{path}: line {line_number}: column {name}: expected a number, found {value!r}")
            return columns
    except OSError as e:
        fail(f"{path}: cannot read: {e.strerror}")


def time_axis(seconds):
    """Chooses seconds, minutes or hours so that tick labels stay readable."""
    span = (max(seconds) - min(seconds)) if seconds else 0
    if span > 3 * 3600:
        return [t / 3600 for t in seconds], "time (h)"
    if span > 3 * 60:
        return [t / 60 for t in seconds], "time (min)"
    return seconds, "time (s)"


def save(figure, out):
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    for extension in ("png", "pdf"):
        # Write under a temporary name, then rename: no truncated figure under the final name.
        final = f"{out}.{extension}"
        temporary = f"{final}.tmp.{os.getpid()}"
        figure.savefig(temporary, format=extension, dpi=150, bbox_inches="tight")
        os.replace(temporary, final)
        print(final)


def pyplot():
    """matplotlib's pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
