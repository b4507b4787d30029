"""Scale benchmark: kb at 1k, 10k, 30k attempts beside its floors, measured in the same run.

Usage::

    python bench/bench_scale.py --sizes 1000,10000,30000 [--repeat 3] [--once-above 20000]
                                [--serve] [--search 10000] [--json out.json] [--work DIR]
                                [--generator campaign|fleet]

For each size it writes a seeded campaign (:mod:`gen_campaign`), then times whole processes
(wall time, median of ``--repeat`` runs; peak resident memory of that process from ``wait4``):

* floors: reading every record file's bytes; parsing every file with libyaml's C loader
  (``yaml.load(..., CSafeLoader)``); a plain Material for MkDocs site (search plugin on) of as
  many minimal pages, out of the navigation, as kb's site has;
* kb: ``kb check`` cold (empty cache) and warm, ``kb roots``, ``kb why``, ``kb unblocks``;
  ``kb check`` and each query as the first command after one record file was edited;
  ``kb build``; with ``--serve``, ``kb serve``: one attempt's title edited → the page served
  with the new title; with ``--search N``: at size N, Chromium (Playwright) types queries into
  the built site's search box and waits for the first result.

Prints one Markdown table with ratios to the floors (the targets of kb issue 13) and the growth
exponent of ``kb build`` between the smallest and largest size. Timings are only asserted here,
never in tests (``tests/test_bench.py`` runs a tiny size so this script keeps working).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gen_campaign import generate  # noqa: E402
from gen_fleet import generate_fleet  # noqa: E402

GENERATORS = {"campaign": generate, "fleet": generate_fleet}
"""``--generator``: :mod:`gen_campaign` (one platform, chains four levels deep) or :mod:`gen_fleet`
(40 campaigns on 8 platforms, random outcomes; kb issue 23's second generator)."""

PY = sys.executable
KB = [PY, "-m", "kb"]

READ_ALL = r"""
import os, sys
n = 0
for d, _, fs in os.walk(sys.argv[1]):
    for f in fs:
        if f.endswith(".yaml"):
            with open(os.path.join(d, f), "rb") as fh:
                n += len(fh.read())
print(n)
"""

LIBYAML_ALL = r"""
import os, sys, yaml
n = 0
for d, _, fs in os.walk(sys.argv[1]):
    for f in fs:
        if f.endswith(".yaml"):
            with open(os.path.join(d, f), "rb") as fh:
                yaml.load(fh.read(), Loader=yaml.CSafeLoader)
            n += 1
print(n)
"""


class _Popen(subprocess.Popen):
    """Popen that reaps its child with ``os.wait4`` to keep that child's own peak RSS."""

    def _try_wait(self, wait_flags):  # type: ignore[override]
        try:
            pid, sts, ru = os.wait4(self.pid, wait_flags)
        except ChildProcessError:
            pid, sts = self.pid, 0
        else:
            if pid == self.pid:
                self._kb_maxrss = ru.ru_maxrss / 1024  # KiB on Linux → MiB
                self._kb_cpu = ru.ru_utime + ru.ru_stime
        return pid, sts


def run(cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
        check: bool = True) -> tuple[float, float, str]:
    """Run ``cmd``; return ``(wall seconds, peak RSS in MB of that process, stdout)``."""
    t0 = time.perf_counter()
    proc = _Popen(cmd, cwd=cwd, env={**os.environ, **(env or {})}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{err[-3000:]}")
    LAST_CPU[0] = getattr(proc, "_kb_cpu", float("nan"))
    return wall, getattr(proc, "_kb_maxrss", float("nan")), out


LAST_CPU = [float("nan")]
"""CPU seconds (user + system) of the last process :func:`run` waited for."""


def timed(label: str, cmd: list[str], repeat: int, results: dict, before=None, **kw) -> None:
    """Run ``cmd`` ``repeat`` times (``before()`` ahead of each run); store the medians of wall
    and CPU seconds and the largest peak RSS under ``results[label]``."""
    walls, cpus, rsss = [], [], []
    for _ in range(repeat):
        if before:
            before()
        w, r, _out = run(cmd, **kw)
        walls.append(w)
        cpus.append(LAST_CPU[0])
        rsss.append(r)
    results[label] = {"wall": statistics.median(walls), "cpu": statistics.median(cpus), "runs": walls,
                      "cpu_runs": cpus, "rss_mb": max(rsss)}
    results[label]["s"] = results[label][CLOCK[0]]
    print(f"    {label:<16} {statistics.median(walls):8.2f} s wall {statistics.median(cpus):8.2f} s cpu "
          f"{max(rsss):6.0f} MB  runs {', '.join(f'{w:.2f}' for w in walls)}", flush=True)


CLOCK = ["cpu"]
"""Which median the table and ratios use: ``cpu`` (user + system seconds of the process, steadier
on a shared machine) or ``wall``."""


def plain_material(dest: Path, pages: int) -> Path:
    """A plain Material site of ``pages`` minimal pages (one heading, one line) out of the nav."""
    docs = dest / "docs"
    (docs / "p").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n\nA plain site.\n")
    for i in range(pages - 1):
        (docs / "p" / f"page-{i:06d}.md").write_text(f"# Page {i}\n\nMinimal page number {i}.\n")
    (dest / "mkdocs.yml").write_text("site_name: floor\ntheme:\n  name: material\n  font: false\n"
                                     "plugins:\n  - search\nnav:\n  - Home: index.md\nnot_in_nav: |\n  /p/\n")
    return dest / "mkdocs.yml"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_edit(work: Path, records: Path, timeout: float = 3600) -> dict:
    """Start ``kb serve``, edit one attempt's title, time until its page shows the new title."""
    port = free_port()
    log = open(work / "serve.log", "w")
    proc = subprocess.Popen([*KB, "--records", str(records), "serve", "-a", f"127.0.0.1:{port}"], cwd=work,
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        attempt = sorted((records / "attempts").iterdir())[len(list((records / "attempts").iterdir())) // 2]
        url = f"http://127.0.0.1:{port}/attempts/{attempt.stem}/"
        t0 = time.perf_counter()
        while not _get(url):
            if proc.poll() is not None or time.perf_counter() - t0 > timeout:
                raise RuntimeError(f"kb serve did not start: see {work / 'serve.log'}")
            time.sleep(0.2)
        startup = time.perf_counter() - t0
        time.sleep(1.0)
        text = attempt.read_text()
        marker = f"Edited {time.time_ns()}"
        first = text.splitlines()[0]
        attempt.write_text(text.replace(first, f"title: {marker}", 1))
        t1 = time.perf_counter()
        while marker not in _get(url):
            if time.perf_counter() - t1 > timeout:
                raise RuntimeError("the edit never reached the page")
            time.sleep(0.05)
        edit = time.perf_counter() - t1
        attempt.write_text(text)
        return {"startup_s": startup, "edit_s": edit}
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.read().decode("utf-8", "replace")
    except Exception:
        return ""


def search_timing(site: Path, queries: list[str]) -> dict:
    """Chromium types each query into Material's search box; seconds until the first result."""
    import functools
    import http.server
    import threading

    from playwright.sync_api import sync_playwright

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a):  # noqa: D401
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    out: dict = {"queries": {}}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            t0 = time.perf_counter()
            page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/")
            out["page_load_s"] = time.perf_counter() - t0
            for q in queries:
                box = page.locator("input.md-search__input")
                box.click()
                box.fill("")
                page.wait_for_timeout(200)
                box.type(q, delay=10)
                t1 = time.perf_counter()
                page.wait_for_function(
                    "q => { const m = document.querySelector('.md-search-result__meta');"
                    " const li = document.querySelector('li.md-search-result__item');"
                    " return li && m && !/Type to start|Initializing/i.test(m.textContent); }", arg=q, timeout=300000)
                out["queries"][q] = time.perf_counter() - t1
            browser.close()
    finally:
        httpd.shutdown()
    return out


def bench_size(n: int, work: Path, repeat: int, serve: bool, search: bool, build: bool = True,
               generator: str = "campaign") -> dict:
    print(f"\n== {n} attempts ({generator})", flush=True)
    camp = work / (f"n{n}" if generator == "campaign" else f"{generator}-n{n}")
    records = camp / "records"
    if not records.exists():
        t0 = time.perf_counter()
        counts = GENERATORS[generator](records, n, seed=13)
        print(f"    generated {counts} in {time.perf_counter() - t0:.1f} s", flush=True)
    res: dict = {"n": n, "bytes": sum(f.stat().st_size for f in records.rglob("*.yaml"))}
    timed("read bytes", [PY, "-c", READ_ALL, str(records)], repeat, res)
    timed("libyaml parse", [PY, "-c", LIBYAML_ALL, str(records)], repeat, res)
    cold_cache = camp / "cold-cache"
    timed("check cold", [*KB, "--records", str(records), "check"], repeat, res, cwd=camp,
          before=lambda: shutil.rmtree(cold_cache, ignore_errors=True), env={"KB_CACHE_DIR": str(cold_cache)})
    run([*KB, "--records", str(records), "check"], cwd=camp)  # warm the cache
    timed("check warm", [*KB, "--records", str(records), "check"], repeat, res, cwd=camp)
    failed = next(p.stem for p in sorted((records / "attempts").iterdir()) if "outcome: failed" in p.read_text())
    timed("roots", [*KB, "--records", str(records), "roots", "-n", "5"], repeat, res, cwd=camp)
    timed("why", [*KB, "--records", str(records), "why", failed], repeat, res, cwd=camp)
    timed("unblocks", [*KB, "--records", str(records), "unblocks", *_unblocks_args(records)],
          repeat, res, cwd=camp)
    after_edit(records, camp, failed, repeat, res)
    if not build:
        return res
    site = camp / "site"
    # into an empty folder, as the floor is built: emptying the last run's site is no part of a build
    timed("kb build", [*KB, "--records", str(records), "build", "-d", str(site)], repeat, res, cwd=camp,
          before=lambda: shutil.rmtree(site, ignore_errors=True))
    pages = sum(1 for _ in site.rglob("*.html")) - (1 if (site / "404.html").exists() else 0)
    index = site / "search" / "search_index.json"
    res["pages"] = pages
    res["search_index_mb"] = index.stat().st_size / 1e6 if index.exists() else 0.0
    res["largest_page_kb"] = max(f.stat().st_size for f in site.rglob("*.html")) / 1e3
    floor = camp / "floor"
    shutil.rmtree(floor, ignore_errors=True)
    cfg = plain_material(floor, pages)
    timed("material floor", [PY, "-m", "mkdocs", "build", "-q", "-f", str(cfg), "-d", str(floor / "site")],
          repeat, res, cwd=floor, before=lambda: shutil.rmtree(floor / "site", ignore_errors=True))
    print(f"    {pages} pages, search index {res['search_index_mb']:.1f} MB, largest page "
          f"{res['largest_page_kb']:.0f} KB", flush=True)
    if serve:
        res["serve"] = serve_edit(camp, records)
        print(f"    serve: started in {res['serve']['startup_s']:.1f} s, edit → page {res['serve']['edit_s']:.2f} s",
              flush=True)
    if search:
        res["search"] = search_timing(site, ["KeyError: 12", "flag sweep", "NCCL error", "kernel path 17"])
        print(f"    search: {json.dumps(res['search'])}", flush=True)
    return res


def _editor(records: Path) -> tuple[Path, bytes, Callable[[], None]]:
    """``(file, its bytes, edit)``: the attempt in the middle of ``records/attempts`` and a
    function that gives its title a new prefix each time it is called."""
    target = sorted((records / "attempts").iterdir())[len(list((records / "attempts").iterdir())) // 2]
    original = target.read_bytes()
    assert original.startswith(b"title: "), target
    count = iter(range(1_000_000))

    def edit() -> None:
        target.write_bytes(original.replace(b"title: ", f"title: Edit {next(count)} of ".encode(), 1))
    return target, original, edit


def _unblocks_args(records: Path) -> list[str]:
    """``kb unblocks``'s question: CUDA 13 from the first stack, for the first campaign when there
    are several (campaigns on several platforms leave the platform open otherwise)."""
    first_stack = sorted(f.stem for f in (records / "stacks").glob("*.yaml"))[0]
    camps = sorted(f.stem for f in (records / "campaigns").glob("*.yaml"))
    return ["cuda=13.0", "--from", first_stack, *(["--campaign", camps[0]] if len(camps) > 1 else [])]


def after_edit(records: Path, camp: Path, failed: str, repeat: int, res: dict) -> None:
    """Time ``kb check`` and each query as the first command after one attempt's title was
    edited (the records cache holds every other file; the check's kept report and the kept
    answers no longer match; the record itself changed, so nothing can be reused for it). The
    file is put back as it was afterwards."""
    target, original, edit = _editor(records)
    base = [*KB, "--records", str(records)]
    try:
        timed("check after edit", [*base, "check"], repeat, res, cwd=camp, before=edit)
        timed("roots after edit", [*base, "roots", "-n", "5"], repeat, res, cwd=camp, before=edit)
        timed("why after edit", [*base, "why", failed], repeat, res, cwd=camp, before=edit)
        timed("unblocks after edit", [*base, "unblocks", *_unblocks_args(records)], repeat, res,
              cwd=camp, before=edit)
    finally:
        target.write_bytes(original)
    run([*base, "check"], cwd=camp)  # warm again for what follows


def table(results: list[dict]) -> str:
    """The Markdown table of medians, memory and ratios (targets of kb issue 13)."""
    def s(r, k):
        return r[k]["s"] if k in r else float("nan")

    def rss(r, k):
        return f"{r[k]['rss_mb']:.0f} MB" if k in r else "–"

    lines = ["| work | " + " | ".join(f"{r['n']:,}" for r in results) + " | target |",
             "|---|" + "---|" * len(results) + "---|"]

    def row(label, fmt, target=""):
        lines.append(f"| {label} | " + " | ".join(fmt(r) for r in results) + f" | {target} |")

    row("floor: read bytes", lambda r: f"{s(r, 'read bytes'):.2f} s ({r['bytes'] / 1e6:.1f} MB)")
    row("floor: libyaml C parse", lambda r: f"{s(r, 'libyaml parse'):.2f} s")
    row("`kb check` cold", lambda r: f"{s(r, 'check cold'):.2f} s = {s(r, 'check cold') / s(r, 'libyaml parse'):.2f}× libyaml "
        f"(CPU {r['check cold']['cpu']:.2f} s)" if "check cold" in r else "–", "≤ 1.3× libyaml")
    row("`kb check` warm", lambda r: f"{s(r, 'check warm'):.2f} s = {s(r, 'check warm') / s(r, 'libyaml parse'):.2f}× libyaml, "
        f"{rss(r, 'check warm')}", "≤ 0.5× libyaml")
    row("`kb check` after one edit", lambda r: f"{s(r, 'check after edit'):.2f} s = "
        f"{s(r, 'check after edit') / s(r, 'libyaml parse'):.2f}× libyaml, {rss(r, 'check after edit')}",
        "≤ 0.5× libyaml, ≤ 1 s")
    for q in ("roots", "why", "unblocks"):
        row(f"`kb {q}`, records unchanged", lambda r, q=q: f"{s(r, q):.2f} s = {s(r, q) / s(r, 'check warm'):.2f}× warm check",
            "≤ 1 s and ≤ 1.2× warm check")
        row(f"`kb {q}` after one edit", lambda r, q=q: f"{s(r, q + ' after edit'):.2f} s = "
            f"{s(r, q + ' after edit') / s(r, 'check after edit'):.2f}× check after one edit",
            "≤ 1 s and ≤ 1.2× check after one edit")
    row("floor: plain Material, same page count", lambda r: f"{s(r, 'material floor'):.1f} s ({r['pages']:,} pages), "
        f"{rss(r, 'material floor')}" if "pages" in r else "–")
    row("`kb build`", lambda r: f"{s(r, 'kb build'):.1f} s = {s(r, 'kb build') / s(r, 'material floor'):.2f}× floor, "
        f"{rss(r, 'kb build')}" if "pages" in r else "–", "≤ 1.5× floor; ≤ 400 MB at 10k")
    row("search index / largest page", lambda r: f"{r['search_index_mb']:.1f} MB / {r['largest_page_kb']:.0f} KB"
        if "pages" in r else "–")
    if any("serve" in r for r in results):
        row("`kb serve`: edit → page", lambda r: f"{r['serve']['edit_s']:.2f} s" if "serve" in r else "–", "≤ 3 s at 10k")
    if any("search" in r for r in results):
        row("search in Chromium: first / later",
            lambda r: (f"{list(r['search']['queries'].values())[0]:.2f} s / ≤ {max(list(r['search']['queries'].values())[1:]):.2f} s"
                       if "search" in r else "–"), "≤ 2 s / ≤ 0.5 s")
    built = [r for r in results if "pages" in r]
    if len(built) > 1:
        a, b = built[0], built[-1]
        exp = math.log(s(b, "kb build") / s(a, "kb build")) / math.log(b["n"] / a["n"])
        fexp = math.log(s(b, "material floor") / s(a, "material floor")) / math.log(b["n"] / a["n"])
        lines.append(f"\nGrowth exponent of `kb build` from {a['n']:,} to {b['n']:,}: {exp:.2f} "
                     f"(floor: {fexp:.2f}; target ≤ 1.05).")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000", help="comma-separated attempt counts")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    ap.add_argument("--once-above", type=int, default=20000, help="sizes above this are measured once")
    ap.add_argument("--serve", action="store_true", help="time kb serve: edit → updated page")
    ap.add_argument("--search", type=int, default=None, help="time search in Chromium at this size")
    ap.add_argument("--build-max", type=int, default=None, help="build the site only up to this size")
    ap.add_argument("--serve-sizes", default="", help="comma-separated sizes at which to time kb serve")
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu", help="the median the table uses")
    ap.add_argument("--json", default=None, help="write the results here")
    ap.add_argument("--work", default=None, help="keep campaigns and sites here (default: a temporary folder)")
    ap.add_argument("--generator", choices=sorted(GENERATORS), default="campaign", help="which synthetic records")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",")]
    tmp = None if args.work else tempfile.TemporaryDirectory(prefix="kb-bench-")
    work = Path(args.work or tmp.name)  # type: ignore[union-attr]
    work.mkdir(parents=True, exist_ok=True)
    try:
        print(f"kb scale benchmark: sizes {sizes}, {os.cpu_count()} CPUs, load average "
              f"{os.getloadavg()[0]:.1f} at start", flush=True)
        CLOCK[0] = args.clock
        serve_sizes = {int(x) for x in args.serve_sizes.split(",") if x}
        results = [bench_size(n, work, 1 if n > args.once_above else args.repeat, args.serve or n in serve_sizes,
                              args.search == n, build=args.build_max is None or n <= args.build_max,
                              generator=args.generator)
                   for n in sizes]
        print(f"\nload average {os.getloadavg()[0]:.1f} at the end\n")
        print(f"(medians of {args.clock} seconds per process; peak RSS per process)\n")
        print(table(results))
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=2))
        return results
    finally:
        if tmp is not None:
            tmp.cleanup()


if __name__ == "__main__":
    main()
