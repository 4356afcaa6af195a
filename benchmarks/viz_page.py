"""The interactive graph page (`chainrule.viz.explore`) on a graph of about 5,000 backward
nodes, opened in headless Chromium: how long the page takes to lay the graph out and draw it.

    PYTHONPATH=. python benchmarks/viz_page.py                 # 5,000 nodes, 5 page loads
    PYTHONPATH=. python benchmarks/viz_page.py --nodes 20000 --repeats 3

Needs Playwright for Python (`pip install playwright`) and a Chromium (Debian's `chromium`
package, found on PATH, or CHAINRULE_CHROMIUM=/path/to/chrome). Prints, per load, and their
median:

  layout+draw   from the page's script starting to the first frame after the graph was laid
                out (longest-path layers, barycenter ordering) and its SVG drawn (the page's
                own `window.layoutMs`)
  ready         from navigation start to that frame: HTML and JSON parsing included
  load          wall time of the whole load as Playwright sees it (goto to ready)

and, once, the time to write the page in Python and its size.
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

import chainrule
from chainrule.autograd._inspect import roots_of, walk


def build(target):
    """A graph of about `target` backward nodes: a long residual chain whose steps share a
    pool of weights, with branches (tanh, sin, mul) that give the layout real work."""
    chainrule.manual_seed(0)
    pool = [chainrule.randn(8, requires_grad=True) for _ in range(max(target // 20, 4))]
    x = chainrule.randn(8, requires_grad=True)
    steps = 0
    while True:
        w = pool[steps % len(pool)]
        y = (x * w).tanh()
        x = y + x.sin() if steps % 3 else y * x
        steps += 1
        if steps % 50 == 0 and len(walk(roots_of(x))[0]) >= target:
            break
    return x.sum()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright
    exe = os.environ.get("CHAINRULE_CHROMIUM") or shutil.which("chromium") or shutil.which(
        "chromium-browser")
    if exe is None:
        sys.exit("no Chromium found: apt-get install chromium, or set CHAINRULE_CHROMIUM")
    out = build(args.nodes)
    n = len(walk(roots_of(out))[0])
    path = os.path.join(tempfile.mkdtemp(), "graph.html")
    t = time.perf_counter()
    chainrule.viz.explore(out, path=path)
    write = time.perf_counter() - t
    print(f"{n} backward nodes; page written in {write * 1e3:.0f} ms, "
          f"{os.path.getsize(path) / 1e6:.2f} MB")
    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        for _ in range(args.repeats):
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            t = time.perf_counter()
            page.goto(f"file://{path}")
            page.wait_for_selector("body[data-ready='1']", timeout=60000)
            load = time.perf_counter() - t
            layout = page.evaluate("window.layoutMs")
            ready = page.evaluate("performance.now()")   # ms since navigation start
            shown = int(page.inner_text("#node-count"))
            assert shown == n, (shown, n)
            rows.append((layout, ready, load * 1e3))
            print(f"layout+draw {layout:7.0f} ms   ready {ready:7.0f} ms   "
                  f"load {load * 1e3:7.0f} ms")
            page.close()
        browser.close()
    med = [statistics.median(c) for c in zip(*rows)]
    print(f"median: layout+draw {med[0]:.0f} ms, ready {med[1]:.0f} ms, load {med[2]:.0f} ms")


if __name__ == "__main__":
    main()
