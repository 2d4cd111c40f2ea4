"""Run upstream Triton's language tests (test_core.py, test_standard.py, test_random.py of
release/3.6.x) against triton_tile on the CPU, and compare with the expected-failure list.

    python tools/upstream_suite/run.py --triton /path/to/triton           # a checkout
    python tools/upstream_suite/run.py --files a/test_core.py b/test_standard.py ...
    python tools/upstream_suite/run.py --triton T --path tile -- -k test_shift_op

--path default (the TTIR executor), tile (ENABLE_TILE=1: the Tile IR executor, falling back
where it must) or both; --real-triton measures the installed upstream Triton's interpreter
(TRITON_INTERPRET=1) on the same ids instead. Arguments after `--` go to pytest. The files
are copied into a scratch directory (test_standard.py imports test_core.py from beside it);
nothing is written into the repository. Prints passed/failed/errors/skipped per file, then
every failure that the list in expected_failures.txt does not cover (exit status 1 if any),
and the listed cases that passed (candidates for removal from the list).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = ("test_core.py", "test_standard.py", "test_random.py")


def load_expected(path):
    """Lines `GLOB<TAB>reason`; GLOB (`*`: anything) matches node ids like
    `test_core.py::test_x[a-b]`; a
    `tile:` or `default:` prefix limits a line to that path."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            glob, _, reason = line.partition("\t")
            glob = glob.strip()
            only = None
            for p in ("tile", "default"):
                if glob.startswith(p + ":"):
                    only, glob = p, glob[len(p) + 1:]
            out.append((only, glob, reason.strip()))
    return out


def _glob_re(glob):
    """`*` matches anything; every other character, `[` and `]` included, is literal (node
    ids are full of brackets)."""
    return re.compile(".*".join(re.escape(part) for part in glob.split("*")) + r"\Z")


def match(expected, nodeid, path):
    for only, glob, reason in expected:
        if (only is None or only == path) and _glob_re(glob).match(nodeid):
            return reason
    return None


MESSAGES = {}  # (path, node id) -> the first line of its failure or error message


def outcomes(junit, path):
    """node id -> passed / failed / error / skipped, from pytest's junit xml."""
    res = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        mod = case.get("classname", "").split(".")[-1]
        nodeid = f"{mod}.py::{case.get('name')}"
        kinds = {c.tag for c in case}
        for c in case:
            if c.tag in ("failure", "error"):
                MESSAGES[path, nodeid] = (c.get("message") or "").split("\n")[0][:300]
        if "error" in kinds:
            res[nodeid] = "error"  # a setup error wins over a failure of the same case
        elif "failure" in kinds:
            res[nodeid] = "failed"
        elif "skipped" in kinds:
            res[nodeid] = "skipped"
        else:
            res[nodeid] = "passed"
    return res


def load_saved(path):
    """node id -> outcome from a --save file (tab-separated; older files: spaces)."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if "\t" in line:
                _, nodeid, outcome = line.split("\t")[:3]
            else:
                m = re.match(r"^(\S+) (.+?) (passed|failed|error|skipped)(?: .*)?$", line)
                if not m:
                    continue
                nodeid, outcome = m.group(2), m.group(3)
            out[nodeid] = outcome
    return out


def compare(theirs, ours, path, files):
    """The interpreter's counts beside ours; True if a case it passes does not pass here."""
    per_file = defaultdict(Counter)
    for nodeid, out in theirs.items():
        per_file[nodeid.split("::")[0]][out] += 1
    for f in files:
        c = per_file[f]
        print(f"{'interpreter':11} {f:18} passed {c['passed']:5}  failed {c['failed']:5}  "
              f"errors {c['error']:3}  skipped {c['skipped']:5}")
    worse = sorted(n for n, o in theirs.items() if o == "passed" and ours.get(n) != "passed"
                   and n.split("::")[0] in files)
    better = sum(1 for n, o in theirs.items() if o != "passed" and ours.get(n) == "passed")
    print(f"{path}: {len(worse)} cases the interpreter passes do not pass here; {better} cases "
          "it does not pass do")
    for n in worse:
        print(f"  INTERPRETER PASSES {ours.get(n, 'missing')}: {n}")
    return bool(worse)


def run_path(path, files, workdir, pytest_args, real_triton):
    env = dict(os.environ)
    env.pop("ENABLE_TILE", None)
    env.pop("TRITON_INTERPRET", None)
    if path == "tile":
        env["ENABLE_TILE"] = "1"
    if real_triton:
        env["TRITON_INTERPRET"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([HERE, workdir] + [env.get("PYTHONPATH", "")])
    junit = os.path.join(workdir, f"junit-{path}.xml")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "plugin", "-p", "no:cacheprovider",
           "--device", "cpu", "--rootdir", workdir, f"--junitxml={junit}",
           "-W", "ignore::DeprecationWarning", "-o", "junit_family=xunit1"]
    if real_triton:
        cmd.append("--real-triton")
    cmd += [os.path.join(workdir, f) for f in files] + list(pytest_args)
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=workdir, env=env, stdout=sys.stderr if real_triton else None)
    return outcomes(junit, path) if os.path.exists(junit) else {}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--triton", help="a Triton checkout (python/test/unit/language/ is read)")
    src.add_argument("--files", nargs="+", help="the test files themselves")
    ap.add_argument("--path", choices=("default", "tile", "both"), default="both")
    ap.add_argument("--real-triton", action="store_true",
                    help="measure the installed upstream Triton's interpreter instead")
    ap.add_argument("--only", nargs="+", choices=FILES, help="a subset of the three files")
    ap.add_argument("--expected", default=os.path.join(HERE, "expected_failures.txt"))
    ap.add_argument("--save", help="write `path<TAB>nodeid<TAB>outcome<TAB>message` lines")
    ap.add_argument("--compare", help="a --save file of a --real-triton run: print its counts "
                    "per file beside ours, and the cases it passes that fail here")
    ap.add_argument("pytest_args", nargs="*", help="after --: passed to pytest")
    args = ap.parse_args(argv)

    if args.triton:
        base = os.path.join(args.triton, "python", "test", "unit", "language")
        srcs = [os.path.join(base, f) for f in FILES]
    else:
        srcs = args.files
    names = [os.path.basename(s) for s in srcs]
    run = [n for n in names if n in (args.only or FILES)]
    expected = load_expected(args.expected)
    paths = ("default", "tile") if args.path == "both" else (args.path,)
    failed_any = False
    with tempfile.TemporaryDirectory(prefix="upstream_suite_") as work:
        for s in srcs:
            shutil.copy(s, work)
        results = {}
        for p in paths:
            results[p] = run_path(p, run, work, args.pytest_args, args.real_triton)
        print()
        for p in paths:
            label = "interpreter" if args.real_triton else p
            per_file = defaultdict(Counter)
            for nodeid, out in results[p].items():
                per_file[nodeid.split("::")[0]][out] += 1
            for f in run:
                c = per_file[f]
                print(f"{label:11} {f:18} passed {c['passed']:5}  failed {c['failed']:5}  "
                      f"errors {c['error']:3}  skipped {c['skipped']:5}")
            if args.real_triton:
                continue
            bad = sorted(n for n, o in results[p].items()
                         if o in ("failed", "error") and match(expected, n, p) is None)
            fixed = sorted(n for n, o in results[p].items()
                           if o == "passed" and match(expected, n, p) is not None)
            listed = sum(1 for n, o in results[p].items()
                         if o in ("failed", "error") and match(expected, n, p) is not None)
            print(f"{label}: {listed} expected failures, {len(bad)} unexpected, "
                  f"{len(fixed)} listed cases passed")
            for n in bad:
                print(f"  UNEXPECTED {results[p][n]}: {n}")
            for n in fixed[:50]:
                print(f"  listed but passed: {n}")
            failed_any |= bool(bad)
            if args.compare:
                failed_any |= compare(load_saved(args.compare), results[p], p, run)
        if args.save:
            with open(args.save, "w") as f:
                for p in paths:
                    for n, o in sorted(results[p].items()):
                        label = "interpreter" if args.real_triton else p
                        msg = MESSAGES.get((p, n), "").replace("\t", " ")
                        f.write(f"{label}\t{n}\t{o}\t{msg}\n")
    return 1 if failed_any else 0


if __name__ == "__main__":
    sys.exit(main())
