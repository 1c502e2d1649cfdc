"""envs/wheelcache.py: llama-cpp-python's wheel is reused only under the key of
everything that decides its build, and a failed build leaves nothing cached.
pip itself is replaced here by a recorder (the real compile is `make install`'s)."""

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("wheelcache", ROOT / "envs" / "wheelcache.py")
wc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(wc)

PORTABLE = "-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DLLAVA_BUILD=OFF"


def facts(**changes):
    base = {"key_version": 1, "dist": "llama-cpp-python", "version": "0.3.36", "sdist_sha256": "ab" * 32,
            "env": {"CMAKE_ARGS": PORTABLE}, "cc": "cc (Debian 12.2.0-14) 12.2.0", "cxx": "c++ (Debian 12.2.0-14) 12.2.0",
            "cmake": "cmake version 3.25.1", "python": "cpython311", "platform": "linux-x86_64",
            "machine": "x86_64", "libc": "glibc 2.36"}
    return {**base, **changes}


def test_the_key_is_a_digest_of_the_canonical_facts():
    f = facts()
    blob = json.dumps(f, sort_keys=True, separators=(",", ":")).encode()
    assert wc.cache_key(f) == "llama-cpp-python-0.3.36-" + hashlib.sha256(blob).hexdigest()[:24]
    assert wc.cache_key(dict(reversed(list(f.items())))) == wc.cache_key(f)  # order of the facts does not matter


@pytest.mark.parametrize("change", [
    {"version": "0.3.37"}, {"sdist_sha256": "cd" * 32}, {"env": {"CMAKE_ARGS": "-DGGML_NATIVE=ON"}},
    {"env": {"CMAKE_ARGS": PORTABLE, "CC": "clang"}}, {"cc": "cc (Debian 13.1.0) 13.1.0"},
    {"cxx": "clang++ 14"}, {"cmake": "cmake version 3.31.0"}, {"python": "cpython312"},
    {"platform": "linux-aarch64"}, {"machine": "aarch64"}, {"libc": "glibc 2.38"}, {"cpu": "AMD EPYC flags:00"},
])
def test_every_fact_that_decides_the_build_changes_the_key(change):
    assert wc.cache_key(facts(**change)) != wc.cache_key(facts())


def test_the_facts_hold_the_build_variables_and_nothing_else_of_the_environment(monkeypatch):
    monkeypatch.setattr(wc, "tool_version", lambda command: f"{command} 1.0")
    env = {"CMAKE_ARGS": PORTABLE, "CXX": "g++-12", "SKBUILD_BUILD_DIR": "/b", "GGML_CUDA": "1",
           "PATH": "/usr/bin", "HOME": "/root", "OPENAI_API_KEY": "sk-x", "CMAKE_BUILD_PARALLEL_LEVEL_X": "2"}
    got = wc.build_facts("0.3.36", "ef" * 32, env)
    assert got["env"] == {"CMAKE_ARGS": PORTABLE, "CXX": "g++-12", "GGML_CUDA": "1", "SKBUILD_BUILD_DIR": "/b"}
    assert got["cc"] == "cc 1.0" and got["cxx"] == "g++-12 1.0"  # CC unset: `cc`; CXX set: that compiler
    assert got["version"] == "0.3.36" and got["sdist_sha256"] == "ef" * 32
    assert got["python"].startswith("cpython3") and got["machine"] and got["libc"]
    assert "cpu" not in got  # a portable build does not depend on this CPU
    native = wc.build_facts("0.3.36", "ef" * 32, {"CMAKE_ARGS": "-DLLAVA_BUILD=OFF"})
    assert native["cpu"] == wc.cpu_identity()  # llama.cpp's default is native: the CPU is part of the key


@pytest.mark.parametrize("args, native", [
    ("", True), ("-DLLAVA_BUILD=OFF", True), ("-DGGML_NATIVE=ON", True), ("-DGGML_NATIVE=OFF", False),
    ("-DGGML_AVX2=ON -DGGML_NATIVE=off", False), ("-DGGML_NATIVE=0", False), ("-DGGML_NATIVE=OFFX", True),
])
def test_a_build_is_native_unless_cmake_args_turn_it_off(args, native):
    assert wc.native_build(args) is native


def test_the_pin_is_read_from_pyproject(tmp_path):
    text = (ROOT / "pyproject.toml").read_text()
    version = wc.pinned_version()
    assert f'"llama-cpp-python=={version}"' in text
    bad = tmp_path / "pyproject.toml"
    bad.write_text('dependencies = ["llama-cpp-python>=0.3"]\n')
    with pytest.raises(wc.WheelCacheError, match="no pinned dependency"):
        wc.pinned_version(bad)


def test_a_stored_wheel_is_found_under_its_key_and_a_partial_entry_is_not(tmp_path):
    wheel = tmp_path / "llama_cpp_python-0.3.36-cp311-cp311-linux_x86_64.whl"
    wheel.write_bytes(b"PK wheel")
    root = tmp_path / "cache"
    found = wc.store(wheel, facts(), root)
    assert found == root / wc.cache_key(facts()) / wheel.name and found.read_bytes() == b"PK wheel"
    assert json.loads((found.parent / "facts.json").read_text()) == facts()
    assert [p.name for p in root.iterdir()] == [found.parent.name]  # no temporary folder left
    half = root / wc.cache_key(facts(version="9"))
    half.mkdir()
    (half / wheel.name).write_bytes(b"PK")
    assert wc.cached_wheel(half) is None  # no facts.json: never renamed into place
    assert wc.cached_wheel(root / "absent") is None


def test_a_build_that_fails_while_stored_leaves_nothing(tmp_path, monkeypatch):
    wheel = tmp_path / "x.whl"
    wheel.write_bytes(b"PK")
    root = tmp_path / "cache"

    def broken(src, dst):
        Path(dst).write_bytes(b"P")  # half written, then the disk is full
        raise OSError("No space left on device")

    monkeypatch.setattr(wc.shutil, "copy2", broken)
    with pytest.raises(OSError):
        wc.store(wheel, facts(), root)
    assert list(root.iterdir()) == []


class FakePip:
    """Stands in for pip: records the calls, 'downloads' an sdist, 'builds' a wheel."""

    def __init__(self, tmp_path, import_ok=(True,)):
        self.calls, self.import_ok = [], list(import_ok)
        self.sdist = tmp_path / "llama_cpp_python-0.3.36.tar.gz"
        self.sdist.write_bytes(b"sdist bytes")

    def pip(self, python, *args):
        self.calls.append(args[0])
        if args[0] == "wheel":
            out = Path(args[args.index("-w") + 1])
            out.mkdir(parents=True, exist_ok=True)
            (out / "llama_cpp_python-0.3.36-cp311-cp311-linux_x86_64.whl").write_bytes(b"PK built")

    def download(self, python, version, dest):
        return self.sdist

    def imports(self, python):
        return self.import_ok.pop(0) if len(self.import_ok) > 1 else self.import_ok[0]


@pytest.fixture
def fake(tmp_path, monkeypatch):
    def make(import_ok=(True,)):
        f = FakePip(tmp_path, import_ok)
        monkeypatch.setattr(wc, "pip", f.pip)
        monkeypatch.setattr(wc, "download_sdist", f.download)
        monkeypatch.setattr(wc, "imports", f.imports)
        monkeypatch.setattr(wc, "tool_version", lambda command: "gcc 12")
        monkeypatch.setenv("CMAKE_ARGS", PORTABLE)
        return f
    return make


def test_the_first_install_compiles_and_caches_the_second_installs_the_cache(fake, tmp_path, monkeypatch):
    root = tmp_path / "cache"
    first = fake()
    assert wc.install("py", root).startswith("compiled llama-cpp-python-0.3.36-")
    assert first.calls == ["wheel", "install", "install"]
    second = fake()
    assert wc.install("py", root).startswith("cached ")
    assert second.calls == ["install", "install"]  # no compile
    third = fake()
    monkeypatch.setenv("CMAKE_ARGS", PORTABLE + " -DGGML_CUDA=ON")  # another build: compiled again, kept beside
    assert wc.install("py", root).startswith("compiled ") and third.calls[0] == "wheel"
    assert len(list(root.iterdir())) == 2


def test_a_build_that_does_not_import_is_not_cached(fake, tmp_path):
    root = tmp_path / "cache"
    fake(import_ok=(False,))
    with pytest.raises(wc.WheelCacheError, match="nothing was cached"):
        wc.install("py", root)
    assert not root.exists() or list(root.iterdir()) == []


def test_a_cached_wheel_that_does_not_import_is_removed_and_compiled_again(fake, tmp_path):
    root = tmp_path / "cache"
    fake()
    wc.install("py", root)
    again = fake(import_ok=(False, True))  # the cached one fails, the new build imports
    assert wc.install("py", root).startswith("compiled ")
    assert again.calls == ["install", "install", "wheel", "install", "install"]
    assert len(list(root.iterdir())) == 1


def test_a_failed_pip_is_a_named_error(tmp_path, monkeypatch):
    monkeypatch.setattr(wc.subprocess, "run", lambda cmd: type("P", (), {"returncode": 1})())
    with pytest.raises(wc.WheelCacheError, match="failed with exit code 1"):
        wc.pip("py", "wheel", "x")
