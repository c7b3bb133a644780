"""Smoke test of bench/performance-report --quick (issue 24): the document it writes has each
goal's section with its tables filled with numbers (the network's with a like-for-like row per
mix), --prose-only keeps it as it is, and a base
build whose outputs differ makes it fail. Times are not asserted (the machine is shared).

Usage: performance_report_test.py SOURCE_DIR BUILD_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

SOURCE, BUILD = sys.argv[1], sys.argv[2]
SCRIPT = os.path.join(SOURCE, "bench", "performance-report")
NUMBER = r"[0-9][0-9,]*(?:\.[0-9]+)?"


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], cwd=SOURCE, capture_output=True,
                          text=True)


def rows(doc, section, first_column):
    """The table rows of `section` (a `## ` heading) whose first cell matches first_column."""
    body = doc.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [[c.strip() for c in line.strip("|").split("|")] for line in body.splitlines()
            if re.match(rf"\| {first_column} \|", line)]


def number(cell):
    m = re.match(NUMBER, cell)
    assert m, f"not a number: {cell!r}"
    return float(m.group(0).replace(",", ""))


def main():
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory(prefix="perf-report-test-") as tmp:
        out = os.path.join(tmp, "performance.md")
        # The build itself as its own base: the base/after columns and the byte-identity check.
        got = run(BUILD, "--quick", "--repeat", "1", "--base", BUILD, "--out", out)
        check(got.returncode == 0, f"report failed: {got.stderr}")
        doc = open(out).read() if got.returncode == 0 else ""
        for title in ("Goal 1: network", "Goal 2: platform", "Goal 3: engine"):
            check(f"\n## {title}\n" in doc, f"no section {title}")
        check(doc.count("### Against the goal, and what bounds it") == 3, "bound text missing")
        check(doc.count("Load average at the end:") == 3, "load not recorded per goal")
        check(doc.count("**This run against the goal** (quick mode") == 3, "verdicts missing")
        if doc:
            net = rows(doc, "Goal 1: network", "(cloud|busy|storm)")
            # Whole process (3 mixes) and in process (3 mixes + the big storm).
            check(len(net) == 7, f"network rows: {net}")
            check(all(number(r[1]) > 0 and number(r[2]) > 0 for r in net), f"network: {net}")
            # Each mix's like-for-like row: dcsim with --columns id,finish_s (no base figures).
            like = rows(doc, "Goal 1: network",
                        r"(cloud|busy|storm), like-for-like \(`--columns id,finish_s`\)")
            check([r[0].split(",")[0] for r in like] == ["cloud", "busy", "storm"],
                  f"like-for-like rows: {like}")
            check(all(number(r[1]) > 0 and r[2:5] == ["-", "-", "-"] for r in like),
                  f"like-for-like: {like}")
            if os.access(os.path.join(BUILD, "bench", "network", "simgrid_flows"), os.X_OK):
                check(all(number(r[5]) > 0 and number(r[6]) > 0 for r in like), f"{like}")
                check("; like-for-like (`--columns id,finish_s`) ≥ 10 on " in doc,
                      "verdict without the like-for-like ratio")
            plat = rows(doc, "Goal 2: platform", "(INFless|Protean)[^|]*")
            check(len(plat) == 8, f"platform rows (4 runs x dcsim, base): {plat}")
            for r in plat:
                # requests > 0 and requests / CPU s consistent with the CPU median.
                n, cpu, rate = number(r[1]), number(r[3]), number(r[4])
                check(n > 0 and cpu > 0 and abs(rate - n / cpu) <= 0.1 * rate + 1, f"{r}")
            check([r[2] for r in plat] == ["dcsim", "base"] * 4, f"binaries: {plat}")
            cuts = rows(doc, "Goal 2: platform", "(10|20|40)s")
            check([r[0] for r in cuts] == ["10s", "20s", "40s"], f"memory rows: {cuts}")
            check(all(number(r[1]) > 0 and number(r[4]) > 0 for r in cuts), f"memory: {cuts}")
            # Longer cuts of one scenario have more requests.
            check(number(cuts[0][1]) < number(cuts[1][1]) < number(cuts[2][1]), f"{cuts}")
            # Each binary with both draws (the SimPy program's formula, RandomStream's), then SimPy.
            eng = rows(doc, "Goal 3: engine", "(dcsim|base|SimPy),[^|]*")
            check([r[0].split(",")[0] for r in eng][:4] == ["dcsim", "base", "dcsim", "base"],
                  f"engine rows: {eng}")
            check(all(number(r[1]) > 0 for r in eng), f"engine: {eng}")
        # --prose-only re-renders the prose from the notes and keeps the figures: unchanged
        # notes give the same document.
        if doc:
            again = run("--prose-only", "--out", out)
            check(again.returncode == 0 and open(out).read() == doc,
                  f"--prose-only changed the document: {again.stderr}")
        # A base whose outputs differ by one byte must stop the report.
        fake = os.path.join(tmp, "base", "src", "cli")
        os.makedirs(fake)
        with open(os.path.join(fake, "dcsim"), "w") as f:
            f.write('#!/bin/sh\n"$DCSIM" "$@" || exit\nout=$4\n'
                    'for s in "$out"/*/summary.json; do printf x >> "$s"; done\n')
        os.chmod(os.path.join(fake, "dcsim"), 0o755)
        os.environ["DCSIM"] = os.path.join(BUILD, "src", "cli", "dcsim")
        got = run(BUILD, "--quick", "--repeat", "1", "--goals", "platform", "--base",
                  os.path.join(tmp, "base"), "--out", os.path.join(tmp, "bad.md"))
        check(got.returncode != 0 and "differ" in got.stderr, f"differing outputs passed: {got}")
        check(not os.path.exists(os.path.join(tmp, "bad.md")), "a failed report wrote its file")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
