"""A flow run on Dask workers against the same run in process, and where the difference goes.

For each job, in rounds that alternate the ways to run it (fresh stores, whole processes,
a Prefect server already running, as a cluster user runs: `subgame server start`):

- ``in process``: `subgame run JOB` (the engine on a thread per core, no Prefect, no Dask);
- ``flow, local``: `subgame run JOB --orchestrate prefect --workers 2` (a flow run on a
  local cluster of 2 worker processes);
- ``flow, slurm`` (with ``--slurm``): `subgame run JOB --cluster PROFILE` on a one-node
  Slurm started here (tests/slurm_local.py), its 2 workers batch jobs of 1 core each;
- with ``--split``, the two halves of ``flow, local`` alone: ``flow, threads`` (`--orchestrate
  prefect --executor threads`: Prefect without Dask) and ``local, no flow``
  (`--orchestrate none --workers 2`: the local cluster without Prefect).

Per run: the wall time, the CPU seconds of the run's processes (user + system, the workers
of a local cluster included; a Slurm job's workers are slurmd's children, so for them the
shards' CPU as the store records it is added), the steps' seconds and the shards' CPU as
`subgame status --json` records them.  The rest, wall and CPU outside the shards, is the
orchestration's: imports, Prefect, the workers' start-up, the driver's bookkeeping.  The
ratio to the in-process run of the same round is printed, the medians at the end, and the
load average with each run (the machine is shared: its load moves every figure).

    python bench/cluster.py [--job 'gops --cards 11 --strategies none'] ... [--rounds 2]
                            [--slurm] [--split]
    python bench/cluster.py --idle 60

``--idle SECONDS``: the CPU an idle local cluster of 2 workers takes over that long, started
as a run starts it (its periodic checks slowed: `subgame.clusters.SLOWED_CHECKS`) and
with Dask's own settings, alternating: the part of a flow run's cost that grows with its
length.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

JOBS = ["gops --cards 11 --strategies none", "gops --cards 12 --strategies top:2"]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def subgame(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-m", "subgame.cli", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT)
    if done.returncode:
        raise SystemExit(f"subgame {' '.join(args)}: exit {done.returncode}: "
                         f"{(done.stderr.strip().splitlines() or [''])[-1][:300]}")
    return done.stdout


def recorded(store: str, env: dict[str, str]) -> tuple[float, float]:
    """The steps' seconds and the shards' CPU seconds the store records."""
    (computation, *_) = json.loads(subgame("status", "--store", store, "--json",
                                           env=env))["computations"]
    steps = computation["steps"]
    return (sum(step.get("seconds", 0) for step in steps),
            sum(step.get("computed", {}).get("shard_cpu_seconds", 0) for step in steps))


def measure(job: str, way: list[str], remote_workers: bool, env: dict[str, str]) -> dict:
    store = tempfile.mkdtemp(prefix="bench-cluster-") + "/store.zarr"
    load = os.getloadavg()[0]
    cpu, start = children_cpu(), time.perf_counter()
    subgame("run", *job.split(), *way, "--store", store, "--json", env=env)
    wall, cpu = time.perf_counter() - start, children_cpu() - cpu
    steps, shards_cpu = recorded(store, env)
    if remote_workers:
        cpu += shards_cpu  # (the workers' start-up and idle time are not counted)
    subprocess.run(["rm", "-rf", str(Path(store).parent)], check=True)
    return {"wall": wall, "cpu": cpu, "steps": steps, "shards_cpu": shards_cpu, "load": load}


def idle_cluster_cpu(seconds: float, checks: dict) -> float:
    """CPU seconds of this process and its workers while a local cluster of 2 sits idle,
    started with these periodic checks."""
    import psutil

    from subgame import clusters

    run_checks, clusters.SLOWED_CHECKS = clusters.SLOWED_CHECKS, checks
    try:
        running = clusters.resolve_profile(None, None, 2).start()
    finally:
        clusters.SLOWED_CHECKS = run_checks
    try:
        running.client.run(lambda: None)  # both workers up

        def tree() -> float:
            processes = [psutil.Process(), *psutil.Process().children(recursive=True)]
            return sum(sum(p.cpu_times()[:2]) for p in processes)

        before = tree()
        time.sleep(seconds)
        return tree() - before
    finally:
        running.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--job", action="append", help=f"`subgame run` arguments {JOBS}")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--slurm", action="store_true", help="also on a one-node Slurm")
    parser.add_argument("--split", action="store_true",
                        help="also Prefect without Dask and Dask without Prefect")
    parser.add_argument("--idle", type=float, help="seconds of an idle local cluster")
    options = parser.parse_args()
    if options.idle:
        from subgame.clusters import SLOWED_CHECKS

        for round_ in range(options.rounds):
            for name, checks in (("Dask's settings", {}), ("a run's", SLOWED_CHECKS)):
                cpu = idle_cluster_cpu(options.idle, checks)
                print(f"round {round_ + 1} idle local cluster of 2, {name:15s}: {cpu:5.2f} CPU s "
                      f"in {options.idle:.0f} s, load {os.getloadavg()[0]:.1f}", flush=True)
        return
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-")))
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_HOME": str(folder / "prefect"),
               "SUBGAME_SERVER_PORT": os.environ.get("SUBGAME_SERVER_PORT", "4217")}
        subgame("server", "start", env=env)
        stack.callback(subgame, "server", "stop", env=env)
        ways = {"in process": ([], False),
                "flow, local": (["--orchestrate", "prefect", "--workers", "2"], False)}
        if options.split:
            ways["flow, threads"] = (["--orchestrate", "prefect", "--executor", "threads"], False)
            ways["local, no flow"] = (["--orchestrate", "none", "--workers", "2"], False)
        if options.slurm:
            from tests.slurm_local import local_slurm, profile_file

            slurm = stack.enter_context(local_slurm(folder / "slurm"))
            env["SLURM_CONF"] = slurm.env["SLURM_CONF"]
            ways["flow, slurm"] = (["--cluster", profile_file(folder, memory="4GB")], True)
        for job in options.job or JOBS:
            subgame("run", *job.split(), "--store", str(folder / "warm.zarr"), env=env)
            print(f"== {job} (numba's cache warmed by an untimed run)", flush=True)
            results: dict[str, list[dict]] = {way: [] for way in ways}
            for round_ in range(options.rounds):
                for way, (args, remote) in ways.items():
                    result = measure(job, args, remote, env)
                    results[way].append(result)
                    base = results["in process"][-1]
                    print(f"  round {round_ + 1} {way:14s} wall {result['wall']:7.2f} s "
                          f"({result['wall'] / base['wall']:.2f}x)  CPU {result['cpu']:7.2f} s "
                          f"({result['cpu'] / base['cpu']:.2f}x)  steps {result['steps']:7.2f} s"
                          f"  shards' CPU {result['shards_cpu']:7.2f} s  outside them: wall "
                          f"{result['wall'] - result['steps']:6.2f} s, CPU "
                          f"{result['cpu'] - result['shards_cpu']:6.2f} s  "
                          f"load {result['load']:.1f}", flush=True)
            base = results["in process"]
            for way, runs in results.items():
                wall = statistics.median(r["wall"] / b["wall"] for r, b in zip(runs, base))
                cpu = statistics.median(r["cpu"] / b["cpu"] for r, b in zip(runs, base))
                print(f"  median {way:14s} wall {wall:.2f}x  CPU {cpu:.2f}x of in process "
                      f"(same rounds)", flush=True)


if __name__ == "__main__":
    main()
