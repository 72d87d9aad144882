"""The run estimates (`subgame run ... --dry-run`) against measurements.

Each job runs in a fresh interpreter with the serial executor, so that one process does
every shard as a worker would: its peak resident memory (ru_maxrss) is compared with the
estimated peak of one worker, and the stored arrays' bytes (Zarr's nbytes) and chunk files
with the estimated store.

    python bench/estimates.py [--job 'guess-who --max-n 4096'] ...
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile

JOBS = ["guess-who --max-n 4096", "guess-who --max-n 8192 --rules official",
        "gops --cards 10", "gops --cards 11", "gops --cards 9 --objective win",
        "higher-lower --max-n 2000", "higher-lower --max-n 100000 --exact-max 0"]

MEASURE = r"""
import inspect, json, os, resource, sys
from dataclasses import replace

import typer
import zarr
from typer.testing import CliRunner

from subgame import families
from subgame.cli import _parameters
from subgame.engine import dry_run, run_computation
from subgame.options import RunOptions

store, name, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
family = families.all_families()[name]
chosen = []
def collect(**values):  # the family's options, parsed as `subgame run` parses them
    chosen.append(family.options(**values))
collect.__signature__ = inspect.Signature(_parameters(family.options))
app = typer.Typer()
app.command()(collect)
assert CliRunner().invoke(app, argv).exit_code == 0
options = RunOptions(store=store, executor="serial")
results = []
for config in family.computations(chosen[0]):
    estimate = dry_run(config, options)
    run_computation(config, replace(options, force=True))
    group = zarr.open_group(store, mode="r")[config.group_path()]
    arrays = [a for _, a in group.members(max_depth=None) if isinstance(a, zarr.Array)]
    files = sum(len(f) for _, _, f in os.walk(os.path.join(store, config.group_path())))
    results.append({"estimated_peak": estimate.worker_peak_bytes,
                    "estimated_bytes": estimate.new_bytes, "estimated_files": estimate.new_files,
                    "nbytes": sum(a.nbytes for a in arrays), "files": files})
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"peak_rss": peak, "computations": results}))
"""


def measure(job: str) -> dict:
    name, *argv = job.split()
    store = tempfile.mkdtemp(prefix="estimate-") + "/store.zarr"
    out = subprocess.run([sys.executable, "-c", MEASURE, store, name, *argv], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--job", action="append", help="family and options, quoted")
    args = parser.parse_args()
    gib = 2**30
    print("| job | estimated peak | measured peak RSS | ratio | estimated bytes / nbytes | "
          "estimated files / files |")
    print("|---|---|---|---|---|---|")
    for job in args.job or JOBS:
        result = measure(job)
        for c in result["computations"]:
            peak = c["estimated_peak"]
            print(f"| `{job}` | {peak / gib:.2f} GiB | {result['peak_rss'] / gib:.2f} GiB | "
                  f"{peak / result['peak_rss']:.2f} | {c['estimated_bytes']:,} / "
                  f"{c['nbytes']:,} | {c['estimated_files']:,} / {c['files']:,} |",
                  flush=True)


if __name__ == "__main__":
    main()
