#!/usr/bin/env python3
"""Structural check of the serverless control plane (issue 23's "Done when"):

  * no part (src/platform/serverless/*) includes the facade
    include/sim/platform/serverless_platform.hpp, directly or through other headers;
  * the quoted includes reachable from the control plane's files form no cycle.

A quoted include is resolved next to the including file first, then under include/, as the
build does. Exits 1 and names the offending files when either rule is broken.

  control_plane_includes.py ROOT        check the repository at ROOT
  control_plane_includes.py --self-test build two small trees in a temporary directory and
                                        check that the rules pass on one and fail on the other
"""
import os
import re
import sys
import tempfile

FACADE = "include/sim/platform/serverless_platform.hpp"
PARTS = "src/platform/serverless"
INCLUDE = re.compile(r'\s*#\s*include\s+"([^"]+)"')


def control_plane_files(root):
    out = []
    for d in (PARTS, "src/platform"):
        for name in sorted(os.listdir(os.path.join(root, d))):
            if name.endswith((".hpp", ".cpp")):
                out.append(os.path.join(d, name))
    return out


def includes_of(root, path):
    found = []
    with open(os.path.join(root, path), encoding="utf-8") as f:
        for line in f:
            m = INCLUDE.match(line)
            if not m:
                continue
            for base in (os.path.dirname(path), "include"):
                candidate = os.path.normpath(os.path.join(base, m.group(1)))
                if os.path.isfile(os.path.join(root, candidate)):
                    found.append(candidate)
                    break
    return found


def include_graph(root):
    graph = {}
    pending = control_plane_files(root)
    while pending:
        path = pending.pop()
        if path in graph:
            continue
        graph[path] = includes_of(root, path)
        pending.extend(p for p in graph[path] if p not in graph)
    return graph


def cycles(graph):
    colour = {}
    found = []

    def visit(node, stack):
        colour[node] = "open"
        stack.append(node)
        for nxt in graph.get(node, []):
            if colour.get(nxt) == "open":
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in colour:
                visit(nxt, stack)
        stack.pop()
        colour[node] = "done"

    for node in sorted(graph):
        if node not in colour:
            visit(node, [])
    return found


def reaches(graph, start, target):
    seen = set()
    pending = list(graph.get(start, []))
    while pending:
        node = pending.pop()
        if node == target:
            return True
        if node not in seen:
            seen.add(node)
            pending.extend(graph.get(node, []))
    return False


def problems(root):
    graph = include_graph(root)
    out = []
    for path in sorted(graph):
        if path.startswith(PARTS + "/") and reaches(graph, path, FACADE):
            out.append(f"{path}: reaches the facade {FACADE}")
    for cycle in cycles(graph):
        out.append("include cycle: " + " -> ".join(cycle))
    return out


def write_tree(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


def self_test():
    clean = {
        FACADE: '#include "sim/platform/platform.hpp"\n',
        "include/sim/platform/platform.hpp": "",
        "src/platform/serverless_platform.cpp": '#include "sim/platform/serverless_platform.hpp"\n'
        '#include "serverless/part.hpp"\n',
        f"{PARTS}/part.hpp": '#include "model.hpp"\n',
        f"{PARTS}/part.cpp": '#include "part.hpp"\n',
        f"{PARTS}/model.hpp": "",
    }
    broken = dict(clean)
    broken[f"{PARTS}/model.hpp"] = '#include "part.hpp"\n'  # a cycle part <-> model
    broken[f"{PARTS}/other.cpp"] = '#include "model.hpp"\n'
    broken[f"{PARTS}/model.hpp"] += '#include "sim/platform/serverless_platform.hpp"\n'
    with tempfile.TemporaryDirectory() as tmp:
        write_tree(os.path.join(tmp, "clean"), clean)
        write_tree(os.path.join(tmp, "broken"), broken)
        ok = problems(os.path.join(tmp, "clean"))
        bad = problems(os.path.join(tmp, "broken"))
    if ok:
        print("self-test: the clean tree was reported:", *ok, sep="\n  ")
        return 1
    expected_facade = {f"{PARTS}/{p}: reaches the facade {FACADE}"
                       for p in ("model.hpp", "other.cpp", "part.cpp", "part.hpp")}
    if not expected_facade <= set(bad) or not any(b.startswith("include cycle:") for b in bad):
        print("self-test: the broken tree was not reported as expected:", *bad, sep="\n  ")
        return 1
    print("self-test: passed")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__)
        return 2
    found = problems(argv[1])
    for p in found:
        print(p)
    if found:
        return 1
    print(f"{len(include_graph(argv[1]))} files: no include cycle, no part reaches the facade")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
