"""The commands the docs tell a user to type, collected and classified by rule.

Collected: every backticked or fenced command of README.md and docs/**/*.md whose
program is ``make``, ``snakemake`` or ``python -m authbench...`` (also as
``.venv/bin/snakemake`` and ``.venv/bin/python``, and after ``VAR=value``
assignments), and the run lines of the header comment of each
examples/*.yaml and config/*.yaml (the comment lines before the first key).
A fenced line's ``# comment`` is not part of its command.

Classified by rule (:func:`classify`), never by a list of commands:

* a placeholder (``<name>``, or ``...`` as a value or word) is filled from
  :data:`PLACEHOLDERS`, keyed by its name (``<your key>`` -> ``your key``,
  ``CONFIG=...`` -> ``CONFIG``, a bare ``...`` -> ``...``); an unknown one is
  an error;
* ``make`` with a target of :data:`MAKE_DRY` runs as ``make -n``;
* a command that needs a cluster (``--profile``, ``--executor``), a key (a
  ``*_KEY``/``*TOKEN`` assignment) or the network (its config has a web
  fetcher: a ``fetch`` section naming more than the local ``urllog``, and a
  target other than ``plan``, which estimates what is not fetched) runs dry:
  Snakemake with ``-n``, and ``make`` as the Snakemake lines ``make -n``
  prints, each with ``-n``;
* everything else runs for real (the copy's models are instant);
* the rest of the order is the docs': a command that reads earlier outputs
  (``--report``, ``progress``) runs after the commands before it, in the same
  copy.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROGRAMS = ("make", "snakemake", ".venv/bin/snakemake")
PYTHONS = ("python", "python3", ".venv/bin/python")
# make targets that install, test, lint or delete: shown (make -n), never run by this test
MAKE_DRY = {"test", "test-fast", "lint", "install", "vllm-env", "clean"}
# what a placeholder stands for, by its name
PLACEHOLDERS = {
    "overlay": "examples/own_scored_domains.yaml",  # an offline overlay on config.yaml
    "CONFIG": "examples/own_scored_domains.yaml",
    "results": "results",
    "step": "--help",  # any step of the command line: its help lists them
    "your key": "not-a-key",
    "OPENPAGERANK_API_KEY": "not-a-key",
    "your cluster profile": "slurm",
    "claims file": "resources/claims/authoritybench.yaml",  # a claims file of one's own: a shipped one stands in
}
PLACEHOLDER = re.compile(r"<([^<>]+)>")
ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)$")
# fetch sections that read local files only (the search log); every other fetcher reads the web
WEB_FREE = {"user_agent", "urllog"}


@dataclass
class Command:
    """One command as a document writes it, where, and how the test runs it."""

    text: str
    source: str  # file:line
    env: dict = field(default_factory=dict)
    words: list = field(default_factory=list)
    how: str = ""  # run | dry | make-dry
    why: str = ""
    line: str = ""  # what the test types in bash -c


def _is_command(text: str) -> bool:
    try:
        words = shlex.split(PLACEHOLDER.sub("X", text))
    except ValueError:
        return False
    while words and ASSIGNMENT.match(words[0]):
        words = words[1:]
    if not words:
        return False
    if words[0] in PROGRAMS:
        return True
    return words[0] in PYTHONS and len(words) >= 3 and words[1] == "-m" and words[2].startswith("authbench")


def _strip_comment(line: str) -> str:
    """A fenced line without its trailing ``# comment`` (quotes respected)."""
    lex = shlex.shlex(line, posix=True, punctuation_chars=False)
    lex.whitespace_split = True
    lex.commenters = "#"
    try:
        words = list(lex)
    except ValueError:
        return line.strip()
    if not words:
        return ""
    # keep the line's own spelling up to where the comment starts
    hash_at = [m.start() for m in re.finditer(r"(^|\s)#", line)]
    for at in hash_at:
        head = line[:at].strip()
        try:
            if shlex.split(head) == words:
                return head
        except ValueError:
            continue
    return line.strip()


FENCE = re.compile(r"^(\s*)(```+|~~~+)", re.M)


def markdown_commands(path: Path) -> list[Command]:
    """The commands of one Markdown file, in document order."""
    rel = path.relative_to(ROOT)
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[tuple[int, str]] = []
    prose: list[tuple[int, str]] = []
    fence = None
    for n, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if m and (fence is None or m.group(2)[0] == fence[0]):
            fence = None if fence else m.group(2)
            prose.append((n, ""))
            continue
        if fence:
            text = _strip_comment(line.strip().removeprefix("$ "))
            if text and _is_command(text):
                out.append((n, text))
            prose.append((n, ""))
        else:
            prose.append((n, line))
    # inline spans; one may run over a line break, never over a blank line
    text = "\n".join(line for _, line in prose)
    for m in re.finditer(r"(?<!`)`([^`]+)`(?!`)", text):
        span = m.group(1)
        if "\n\n" in span.replace(" ", ""):
            continue
        span = " ".join(span.split())
        if _is_command(span):
            out.append((text.count("\n", 0, m.start()) + 1, span))
    return [Command(t, f"{rel}:{n}") for n, t in sorted(out)]


def yaml_header_commands(path: Path) -> list[Command]:
    """The run lines of a config file's header comment (``#   <command>``)."""
    rel = path.relative_to(ROOT)
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("#"):
            break
        text = line.lstrip("#").strip()
        if text and _is_command(text):
            out.append(Command(text, f"{rel}:{n}"))
    return out


def indexed_pages(index: Path) -> list[Path]:
    """The pages of the folder an index page heads (docs/decisions/ for
    docs/decisions.md), in the order the index links them, then any it does
    not link."""
    folder = index.with_suffix("")
    if not folder.is_dir():
        return []
    linked = [index.parent / t for t in re.findall(r"\]\((" + re.escape(folder.name) + r"/[^)#\s]+\.md)\)",
                                                     index.read_text(encoding="utf-8"))]
    linked = [p for p in dict.fromkeys(linked) if p.is_file()]
    return linked + [p for p in sorted(folder.rglob("*.md")) if p not in linked]


def documented_commands(root: Path = ROOT) -> list[Command]:
    """Every documented command, README first, then docs/, examples/, config/."""
    docs = [root / "README.md"]
    for page in sorted((root / "docs").glob("*.md")):
        docs += [page, *indexed_pages(page)]
    out = [c for p in docs for c in markdown_commands(p)]
    for folder in ("examples", "config"):
        out += [c for p in sorted((root / folder).glob("*.yaml")) for c in yaml_header_commands(p)]
    return out


class UnknownPlaceholder(ValueError):
    pass


def fill(text: str, source: str) -> str:
    """``text`` with each placeholder replaced from :data:`PLACEHOLDERS`."""
    def one(name, spelled):
        if name not in PLACEHOLDERS:
            raise UnknownPlaceholder(f"{source}: `{text}`: placeholder {spelled} is not in PLACEHOLDERS")
        return PLACEHOLDERS[name]

    text = PLACEHOLDER.sub(lambda m: one(m.group(1), m.group(0)), text)
    words = []
    for word in text.split(" "):
        a = ASSIGNMENT.match(word)
        if a and a.group(2) == "...":
            word = f"{a.group(1)}={one(a.group(1), word)}"
        elif word == "...":
            word = one("...", word)
        words.append(word)
    return " ".join(words)


def readme_activation(root: Path = ROOT) -> str | None:
    """The README's command that puts ``snakemake`` and ``python`` on PATH
    (a backticked ``source .venv/bin/activate``), or None."""
    text = (root / "README.md").read_text(encoding="utf-8")
    found = re.search(r"`(source [^`]*activate)`", text)
    return found.group(1) if found else None


def _snakemake_configfiles(words: list[str]) -> list[str]:
    out, taking = [], False
    for w in words:
        if w.startswith("--configfile="):
            out.append(w.split("=", 1)[1])
            taking = False
        elif w in ("--configfile", "--configfiles"):
            taking = True
        elif taking and not w.startswith("-"):
            out.append(w)
        else:
            taking = False
    return out


# Snakemake options that take values (so that a target is not mistaken for one)
VALUED = {"--cores", "-c", "--jobs", "-j", "--profile", "--executor", "--report", "--directory", "-d", "-s",
          "--snakefile", "--config", "-C", "--rerun-triggers", "--quiet", "--sdm", "--software-deployment-method"}


def _snakemake_targets(words: list[str]) -> list[str]:
    """The targets of a Snakemake command line (as Snakemake reads them: the
    words after ``--configfile`` up to the next option are config files)."""
    targets, skip, files = [], False, False
    for w in words:
        if w.startswith("-"):
            files = w in ("--configfile", "--configfiles")
            skip = w in VALUED
            continue
        if skip or files:
            skip = False
            continue
        targets.append(w)
    return targets


def _overlaid(configfiles: list[str], root: Path) -> list[dict]:
    """config.yaml and each overlay that exists, parsed, in merge order."""
    import yaml

    paths = [Path(f) if Path(f).is_absolute() else root / f for f in ["config.yaml", *configfiles]]
    return [yaml.safe_load(p.read_text()) or {} for p in paths if p.is_file()]


def _merged_fetch(configfiles: list[str], root: Path) -> dict:
    fetch: dict = {}
    for cfg in _overlaid(configfiles, root):
        fetch.update(cfg.get("fetch") or {})
    return fetch


def writes_passages(configfiles: list[str], root: Path = ROOT) -> bool:
    """Whether the config has models write self-preference passages
    (``selfpref.generate.models``, config.yaml's unless an overlay sets it)."""
    generate = None
    for cfg in _overlaid(configfiles, root):
        sp = cfg.get("selfpref") or {}
        if isinstance(sp, dict) and "generate" in sp:
            generate = sp["generate"] if generate is None or sp["generate"] is None else {**generate, **sp["generate"]}
    return bool((generate or {}).get("models"))


def _results(configfiles: list[str], root: Path) -> str:
    results = "results"
    for cfg in _overlaid(configfiles, root):
        results = cfg.get("results") or results
    return results


def _dry(text: str, words: list[str], program: str) -> str:
    """The dry form of a command as typed: Snakemake with ``-n``; make with
    ``-n`` added to ``ARGS`` (make takes the last assignment; a dry ``make
    run``/``demo`` runs no plan step: the Makefile)."""
    if program != "make":
        return f"{text} -n"
    args = next((w.split("=", 1)[1] for w in words if w.startswith("ARGS=")), "")
    return f"{text} {shlex.quote('ARGS=' + (args + ' -n').strip())}"


def classify(cmd: Command, activation: str | None = None, root: Path = ROOT) -> Command:
    """Set ``cmd.how`` (run | dry | make-dry), ``cmd.why``, ``cmd.line``
    (what bash runs), ``cmd.probe`` (for a config with web fetchers, the dry
    form that shows whether this command would fetch: see the module's rules),
    ``cmd.results`` (its config's results folder) and ``cmd.runs_jobs`` (a
    make run/demo: it plans, then runs)."""
    text = fill(cmd.text, cmd.source)
    words = shlex.split(text)
    env = {}
    while words and ASSIGNMENT.match(words[0]):
        name, value = ASSIGNMENT.match(words[0]).groups()
        env[name] = value
        words = words[1:]
    program = words[0]
    cmd.env, cmd.words, cmd.probe = env, words, None
    keyed = [n for n in env if SECRET_NAME.search(n)]
    if program == "make":
        variables = dict(ASSIGNMENT.match(w).groups() for w in words[1:] if ASSIGNMENT.match(w))
        targets = [w for w in words[1:] if not ASSIGNMENT.match(w) and not w.startswith("-")]
        if not targets or set(targets) & MAKE_DRY:
            cmd.how, cmd.why = "make-dry", "installs, tests, lints or deletes: make -n"
            cmd.line, cmd.results, cmd.runs_jobs = shlex.join(["make", "-n", *words[1:]]), None, False
            return cmd
        configfiles = [variables["CONFIG"].replace("$PWD", str(root))] if variables.get("CONFIG") else []
        args = shlex.split(variables.get("ARGS", ""))
        runs = bool(set(targets) & {"run", "demo"}) and not set(args) & {"-n", "--dry-run"}
    elif program in PROGRAMS or program in PYTHONS:
        args = words[1:]
        configfiles = _snakemake_configfiles(args) if "snakemake" in program else []
        runs = False
    else:
        raise ValueError("no rule covers this program")
    cluster = any(a in ("--profile", "--executor") or a.startswith(("--profile=", "--executor=")) for a in args)
    web = sorted(k for k in _merged_fetch(configfiles, root) if k not in WEB_FREE)
    needs = (["a cluster (--profile/--executor)"] if cluster else []) + ([f"a key ({', '.join(keyed)})"] if keyed else [])
    cmd.results, cmd.configfiles = _results(configfiles, root), configfiles
    dry = _dry(text, words, program)
    cmd.line = text
    if needs:
        cmd.how, cmd.why, runs, cmd.line = "dry", "needs " + " and ".join(needs), False, dry
    else:
        cmd.how, cmd.why = "run", "runs for real on the instant engine"
        if web and ("snakemake" in program or program == "make"):
            cmd.probe = dry  # run for real unless its dry run schedules a web fetch job
    cmd.runs_jobs = runs
    if program in ("snakemake", *PYTHONS[:2]):  # typed bare: after the README's activation
        if activation is None and root == ROOT:
            activation = readme_activation(root)
        if activation is None:
            raise ValueError("typed bare, but README.md says nowhere how to put it on PATH (source .venv/bin/activate)")
        cmd.line = f"{activation} && {cmd.line}"
        cmd.probe = cmd.probe and f"{activation} && {cmd.probe}"
    return cmd


def fetches_from_the_web(dry_run_output: str) -> list[str]:
    """The web fetch rules a dry run schedules (every ``fetch_*`` rule but
    those of :data:`WEB_FREE`: a local search log)."""
    from dryrun import job_counts

    if "Job stats:" not in dry_run_output:
        return []
    return sorted(r for r in job_counts(dry_run_output)
                  if r.startswith("fetch_") and r.removeprefix("fetch_") not in WEB_FREE)
