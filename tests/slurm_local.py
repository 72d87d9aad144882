"""A real one-node Slurm on this machine: munged, slurmctld and slurmd from Debian's
slurm-wlm, as this process's children, with their configuration, key, state and logs in
one folder.  No cgroups and no systemd: processes are tracked by their parent ids
(proctrack/linuxproc), tasks are not bound (task/none).  The daemons run as root, as a
container's CI does; the jobs run as the submitting user with its environment
(``sbatch --export=ALL``, Slurm's default), so a job's Python is this one.

    with local_slurm(folder) as slurm:   # SLURM_CONF is set while it runs
        subprocess.run(["sbatch", "--wrap", "hostname"], env=slurm.env)
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import yaml

from tests.ops_helpers import free_port

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo")
PARTITION = "debug"


class SlurmDidNotStart(RuntimeError):
    """A daemon is missing, exited, or the node never became idle."""


def profile_file(folder: Path, workers: int = 2, memory: str = "1GB",
                 lifetime: dict | None = None) -> str:
    """A cluster profile as deploy/clusters/slurm.yaml writes one, sized for this Slurm:
    one single-threaded worker per job, the scheduler and its dashboard on loopback (one
    node), job logs in ``folder``/jobs."""
    profile = {"kind": "slurm", "workers": workers, "lifetime": lifetime, "options": {
        "cores": 1, "processes": 1, "memory": memory, "walltime": "01:00:00",
        "queue": PARTITION, "log_directory": str(folder / "jobs"),
        "scheduler_options": {"host": "127.0.0.1", "dashboard_address": "127.0.0.1:0"}}}
    path = folder / "slurm-here.yaml"
    path.write_text(yaml.safe_dump(profile))
    return str(path)


def slurm_conf(folder: Path, node: str, cpus: int, memory_mb: int) -> str:
    ports = free_port(), free_port()
    return f"""\
ClusterName=subgame
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={ports[0]}
SlurmdPort={ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={folder}/munge.socket
StateSaveLocation={folder}/state
SlurmdSpoolDir={folder}/spool
SlurmctldPidFile={folder}/slurmctld.pid
SlurmdPidFile={folder}/slurmd.pid
SlurmctldLogFile={folder}/slurmctld.log
SlurmdLogFile={folder}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
InactiveLimit=0
KillWait=5
MinJobAge=2
NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory_mb} State=UNKNOWN
PartitionName={PARTITION} Nodes={node} Default=YES MaxTime=INFINITE State=UP
"""


@dataclass
class LocalSlurm:
    folder: Path
    env: dict[str, str]
    daemons: list[subprocess.Popen]

    def command(self, *args: str) -> str:
        return subprocess.run(list(args), env=self.env, check=True, capture_output=True,
                              text=True, timeout=60).stdout

    def jobs(self) -> dict[str, str]:
        """Job id -> state of every job the controller still lists."""
        lines = self.command("squeue", "--noheader", "--format=%i %T").split("\n")
        return dict(line.split() for line in lines if line.strip())

    def logs(self) -> str:
        return "\n".join(f"== {path.name}\n" + path.read_text()[-2000:]
                         for path in sorted(self.folder.glob("*.log")))


@contextmanager
def local_slurm(folder: Path, cpus: int | None = None,
                memory_mb: int = 8000) -> Iterator[LocalSlurm]:
    """Start munged, slurmctld and slurmd (foreground, children of this process), wait for
    the node to be idle, and stop them all after: cancelled jobs first."""
    missing = [name for name in DAEMONS if shutil.which(name) is None]
    if missing:
        raise SlurmDidNotStart(f"not installed: {missing} (apt-get install slurm-wlm munge)")
    if os.geteuid() != 0:
        raise SlurmDidNotStart("the local Slurm's daemons run as root")
    folder.mkdir(parents=True, exist_ok=True)
    for sub in ("state", "spool"):
        (folder / sub).mkdir(exist_ok=True)
    key = folder / "munge.key"
    key.write_bytes(secrets.token_bytes(1024))
    key.chmod(0o600)
    node = socket.gethostname().split(".")[0]
    conf = folder / "slurm.conf"
    conf.write_text(slurm_conf(folder, node, cpus or os.cpu_count() or 1, memory_mb))
    env = {**os.environ, "SLURM_CONF": str(conf)}
    log = open(folder / "daemons.out", "w")
    daemons: list[subprocess.Popen] = []

    def start(*args: str) -> None:
        daemons.append(subprocess.Popen(list(args), env=env, stdout=log,
                                        stderr=subprocess.STDOUT))

    slurm = LocalSlurm(folder, env, daemons)
    try:
        start("munged", "--foreground", "--force", f"--key-file={key}",
              f"--socket={folder}/munge.socket", f"--pid-file={folder}/munged.pid",
              f"--log-file={folder}/munged.log", f"--seed-file={folder}/munged.seed")
        _wait(lambda: (folder / "munge.socket").exists(), daemons, slurm, "munged's socket")
        start("slurmctld", "-D", "-i", "-f", str(conf))
        start("slurmd", "-D", "-f", str(conf))
        _wait(lambda: _node_state(slurm) == "idle", daemons, slurm, "an idle node")
        yield slurm
    finally:
        try:
            if daemons and daemons[-1].poll() is None:
                subprocess.run(["scancel", "--full", "--partition", PARTITION], env=env,
                               capture_output=True, timeout=30)
                _wait(lambda: not slurm.jobs(), daemons, slurm, "no jobs left", timeout=30)
        finally:
            for daemon in reversed(daemons):
                if daemon.poll() is None:
                    daemon.terminate()
                    try:
                        daemon.wait(timeout=15)
                    except subprocess.TimeoutExpired:
                        daemon.kill()
                        daemon.wait()
            log.close()


def _node_state(slurm: LocalSlurm) -> str | None:
    try:
        return slurm.command("sinfo", "--noheader", "--format=%T").strip()
    except subprocess.CalledProcessError:
        return None  # the controller is not answering yet


def _wait(condition, daemons: list[subprocess.Popen], slurm: LocalSlurm, what: str,
          timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        exited = [d.args[0] for d in daemons if d.poll() is not None]
        if exited or time.monotonic() > deadline:
            raise SlurmDidNotStart(f"waiting for {what}: "
                                   f"{f'{exited} exited' if exited else 'timed out'}\n"
                                   f"{slurm.logs()}")
        time.sleep(0.2)
