"""llama-cpp-python's wheel, compiled once per build and reused (``make install``).

PyPI has no wheel of llama-cpp-python: pip compiles its sdist (4-9 minutes on 2
cores). pip's own wheel cache would skip that compile in a later clone, but it
keys the wheel by the sdist alone: a wheel built with other ``CMAKE_ARGS``
(``-DGGML_NATIVE=ON``, a GPU backend), another compiler or another libc would be
reused silently. This script keeps each wheel it built in a per-user cache under
a key of everything that decides the build (:func:`build_facts`):

* the package's name, version and the sdist's SHA-256;
* the build's environment variables (``CMAKE_ARGS``, ``CC``, ``CXX``, ``CFLAGS``,
  ``CXXFLAGS``, ``LDFLAGS``, ``FORCE_CMAKE``, every ``SKBUILD_*`` and ``GGML_*``);
* the C and C++ compilers' and CMake's ``--version``;
* the Python tag (``cp311``), the platform and machine (``linux-x86_64``), the libc
  (``glibc 2.36``);
* for a build tuned to its CPU (no ``-DGGML_NATIVE=OFF`` in ``CMAKE_ARGS``: llama.cpp's
  default is native), the CPU's model and instruction-set flags.

A wheel found under its key is installed from there; any change of the key
compiles again. A build is written under a temporary name and renamed into place
only once it is whole, so a failed or killed build leaves nothing in the cache;
after the install ``import llama_cpp`` is checked (a cached wheel that fails it
is removed and compiled again). With no cache the script compiles as pip would.

    .venv/bin/python envs/wheelcache.py            # what `make install` runs
    .venv/bin/python envs/wheelcache.py --key      # the key and its facts, nothing installed

The cache: ``$AUTHBENCH_WHEEL_CACHE``, else ``$XDG_CACHE_HOME/authbench/wheels``
(``~/.cache/authbench/wheels``); delete it to compile again. The pin is read from
pyproject.toml (the one place it is written). Standard library only: it runs
before anything else is installed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIST = "llama-cpp-python"
IMPORT = "llama_cpp"
# the build's environment: what llama-cpp-python's scikit-build-core build and CMake read
BUILD_VARS = ("CMAKE_ARGS", "CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "FORCE_CMAKE")
BUILD_PREFIXES = ("SKBUILD_", "GGML_", "LLAMA_")
KEY_VERSION = 1  # bumped when the facts change meaning


class WheelCacheError(Exception):
    """A named failure: the message says what went wrong and what to do."""


def pinned_version(pyproject: Path = ROOT / "pyproject.toml", dist: str = DIST) -> str:
    """The version ``pyproject.toml`` pins ``dist`` to (``"dist==X"`` among its dependencies)."""
    match = re.search(rf'"{re.escape(dist)}==([^";\s]+)"', pyproject.read_text())
    if not match:
        raise WheelCacheError(f"{pyproject}: no pinned dependency \"{dist}==<version>\"")
    return match.group(1)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def tool_version(command: str) -> str:
    """The first line a program prints for ``--version`` (its own words), or ``missing``."""
    words = command.split()
    if not words or shutil.which(words[0]) is None:
        return "missing"
    try:
        proc = subprocess.run([*words, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return "missing"
    lines = (proc.stdout or proc.stderr).strip().splitlines()
    return lines[0].strip() if lines else "missing"


def native_build(cmake_args: str) -> bool:
    """Whether llama.cpp tunes the build to this CPU (its default, GGML_NATIVE on)."""
    return not re.search(r"-DGGML_NATIVE=(OFF|0|FALSE|NO)\b", cmake_args, re.I)


def cpu_identity() -> str:
    """The CPU's model name and a digest of its instruction-set flags (Linux), else the processor string."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or "unknown"
    model = re.search(r"^model name\s*:\s*(.+)$", info, re.M)
    flags = re.search(r"^(?:flags|Features)\s*:\s*(.+)$", info, re.M)
    digest = hashlib.sha256(" ".join(sorted(flags.group(1).split())).encode()).hexdigest()[:16] if flags else "none"
    return f"{model.group(1).strip() if model else platform.processor()} flags:{digest}"


def build_facts(version: str, sdist_sha256: str, env: dict | None = None) -> dict:
    """Everything that decides the wheel's build (see the module's docstring)."""
    env = os.environ if env is None else env
    variables = {k: env[k] for k in sorted(env) if k in BUILD_VARS or k.startswith(BUILD_PREFIXES)}
    facts = {
        "key_version": KEY_VERSION,
        "dist": DIST,
        "version": version,
        "sdist_sha256": sdist_sha256,
        "env": variables,
        "cc": tool_version(env.get("CC") or "cc"),
        "cxx": tool_version(env.get("CXX") or "c++"),
        "cmake": tool_version("cmake"),
        "python": f"{sys.implementation.name}{sys.version_info.major}{sys.version_info.minor}",
        "platform": sysconfig.get_platform(),
        "machine": platform.machine(),
        "libc": " ".join(part for part in platform.libc_ver() if part) or "unknown",
    }
    if native_build(variables.get("CMAKE_ARGS", "")):
        facts["cpu"] = cpu_identity()
    return facts


def cache_key(facts: dict) -> str:
    """The cache folder's name: the version and a digest of every fact (canonical JSON)."""
    blob = json.dumps(facts, sort_keys=True, separators=(",", ":")).encode()
    return f"{facts['dist']}-{facts['version']}-{hashlib.sha256(blob).hexdigest()[:24]}"


def cache_root(env: dict | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("AUTHBENCH_WHEEL_CACHE"):
        return Path(env["AUTHBENCH_WHEEL_CACHE"])
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "authbench" / "wheels"


def cached_wheel(folder: Path) -> Path | None:
    """The wheel of a complete cache entry (a folder renamed into place holds exactly one), or None."""
    wheels = sorted(folder.glob("*.whl")) if folder.is_dir() else []
    return wheels[0] if len(wheels) == 1 and (folder / "facts.json").is_file() else None


def store(wheel: Path, facts: dict, root: Path) -> Path:
    """Put ``wheel`` into the cache under its key: written in a temporary folder
    beside the entry, then renamed (a rename is atomic; a concurrent build that
    got there first wins, and this copy is dropped)."""
    root.mkdir(parents=True, exist_ok=True)
    final = root / cache_key(facts)
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", suffix=".partial", dir=root))
    try:
        shutil.copy2(wheel, tmp / wheel.name)
        (tmp / "facts.json").write_text(json.dumps(facts, indent=2, sort_keys=True) + "\n")
        try:
            os.rename(tmp, final)
        except OSError:
            if cached_wheel(final) is None:
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    found = cached_wheel(final)
    if found is None:
        raise WheelCacheError(f"{final}: the cache entry just written holds no wheel")
    return found


def pip(python: str, *args: str) -> None:
    cmd = [python, "-m", "pip", *args]
    proc = subprocess.run(cmd)
    if proc.returncode != 0:
        raise WheelCacheError(f"`{' '.join(cmd)}` failed with exit code {proc.returncode} (its output is above)")


def download_sdist(python: str, version: str, dest: Path) -> Path:
    """The sdist from the index (pip's HTTP cache makes a second download free)."""
    pip(python, "download", "--no-deps", "--no-binary", DIST, f"{DIST}=={version}", "-d", str(dest))
    found = sorted(dest.glob("*.tar.gz")) + sorted(dest.glob("*.zip"))
    if len(found) != 1:
        raise WheelCacheError(f"pip download of {DIST}=={version} left {len(found)} sdists in {dest}, not 1")
    return found[0]


def pinned_build(python: str, work: Path) -> tuple[str, Path, dict]:
    """The pinned version, its sdist (downloaded into ``work/sdist``) and the facts of its build here."""
    version = pinned_version()
    sdist = download_sdist(python, version, work / "sdist")
    return version, sdist, build_facts(version, sha256(sdist))


def put(python: str, wheel: Path) -> None:
    """This wheel installed, in place of any other build of the same version, and its dependencies."""
    pip(python, "install", "--force-reinstall", "--no-deps", str(wheel))
    pip(python, "install", str(wheel))


def imports(python: str) -> bool:
    return subprocess.run([python, "-c", f"import {IMPORT}"], capture_output=True).returncode == 0


def install(python: str, root: Path) -> str:
    """Install the pinned llama-cpp-python into ``python``'s environment: from the
    cache when its key is there, else compiled and cached. Returns what happened."""
    with tempfile.TemporaryDirectory(prefix="authbench-wheel-") as work:
        version, sdist, facts = pinned_build(python, Path(work))
        key = cache_key(facts)
        wheel = cached_wheel(root / key)
        if wheel is not None:
            print(f"wheelcache: {DIST} {version}: installing the cached build {root / key}", flush=True)
            put(python, wheel)
            if imports(python):
                return f"cached {key}"
            print(f"wheelcache: the cached build fails `import {IMPORT}`: removed, compiling again", flush=True)
            shutil.rmtree(root / key, ignore_errors=True)
        start = time.monotonic()
        print(f"wheelcache: {DIST} {version}: no cached build under {root / key}: compiling "
              f"(CMAKE_ARGS={facts['env'].get('CMAKE_ARGS', '')!r})", flush=True)
        out = Path(work) / "wheel"
        # --no-cache-dir: pip's own wheel cache neither answers nor keeps this build
        pip(python, "wheel", "--no-deps", "--no-cache-dir", "-w", str(out), str(sdist))
        built = sorted(out.glob("*.whl"))
        if len(built) != 1:
            raise WheelCacheError(f"pip wheel of {sdist.name} left {len(built)} wheels in {out}, not 1")
        put(python, built[0])
        if not imports(python):
            raise WheelCacheError(f"{DIST} {version} compiled, but `{python} -c 'import {IMPORT}'` fails: "
                                  "nothing was cached; check CMAKE_ARGS and the compiler")
        store(built[0], facts, root)
        return f"compiled {key} in {time.monotonic() - start:.0f} s"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable, help="the environment's interpreter (default: this one)")
    ap.add_argument("--key", action="store_true", help="print the key and its facts; install nothing")
    args = ap.parse_args(argv)
    root = cache_root()
    try:
        if args.key:
            with tempfile.TemporaryDirectory(prefix="authbench-wheel-") as work:
                facts = pinned_build(args.python, Path(work))[2]
            print(json.dumps({"key": cache_key(facts), "cache": str(root), "facts": facts}, indent=2))
            return 0
        print(f"wheelcache: {install(args.python, root)}", flush=True)
    except WheelCacheError as err:
        print(f"wheelcache: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
