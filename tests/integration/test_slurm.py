"""The SLURM profile against a real SLURM: a single-node cluster started on this machine.

tests/slurm/local-cluster.sh starts munged, slurmctld and slurmd (with two fake GPUs, so the real
profile's `gpu: 1` requests are scheduled as on a GPU partition) and stops them afterwards. The tiny
config's scoring, supervised and universal jobs and one training job run through `--profile
slurm` (the project's profile, which Snakemake finds from the checkout's root) layered with the local-cluster
settings in tests/slurm/profile; what they need besides
(the data stages, the other training jobs) is built first with the local profile (not the Stanza models, the
analyses or the report, which ask nothing of SLURM that these do not). The training job is cancelled with `scancel`
mid-training: the profile's retries resubmit it, it resumes from its checkpoint and ends with exactly the metrics of
an uninterrupted run; so does a group of supervised jobs. Each is frozen (SIGSTOP) before its cancel, which SLURM
delivers as SIGCONT and SIGTERM, so a job whose epochs take a tenth of a second cannot finish first.

Needs root and Debian's slurm-wlm and munge (`.ci/run` installs them). Skipped without them,
except under CI (PARAPHRASTIC_REQUIRE_SLURM=1), where that is a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml

from paraphrastic.configuration.jobs import JobTables
from paraphrastic.pipeline.job_resources import RULES
from tests.conftest import scratch_folder
from tests.integration.test_pipeline import SNAKEMAKE, new_user, scratch_checkout, sh

pytestmark = [pytest.mark.integration, pytest.mark.slurm]

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "tests" / "slurm" / "local-cluster.sh"
# the README's `--profile slurm` (found from the checkout's root), then the local cluster's settings; the workflow
# profile (profiles/default) is read too, and wins key by key: the group sizes that fit the small node come on the
# command line
GROUP_SIZES = ["--group-components", "supervised=2", "universal=2", "scoring=2"]
PROFILES = ["--profile", "slurm", "--profile", "tests/slurm/profile", *GROUP_SIZES]
# The documented way to change one resource of a rule, given while the pipeline runs: the training job must keep the
# rule's GPU, partition and memory (an override in the workflow profile's place once dropped them without a word)
OVERRIDDEN_RUNTIME = RULES["train"]["runtime"] + 1
OVERRIDE = ["--set-resources", f"train:runtime={OVERRIDDEN_RUNTIME}"]
# The rules whose SLURM behaviour is tested (resubmission, groups), with every job they need
UNTIL = ["--until", "evaluate", "train_supervised", "train_universal"]
VICTIM = "lstm-simpwiki"  # the training job that gets cancelled (and whose resources are checked)
VICTIM_EPOCHS = 4
SUPERVISED_EPOCHS = 5  # long enough for a group of supervised jobs to be caught mid-training
# What the local node offers SLURM: more than the 8 of the design's `--cores 8`, so that the test of jobs in flight
# can see whether that caps them (the pipeline's tests run at most tests/slurm/profile's `jobs`, 8, at once)
NODE_CPUS = 16
GROUPED = ("train_supervised", "train_universal", "evaluate", "baseline", "baseline_distilled")  # profile `groups`


@pytest.fixture(scope="module")
def slurm():
    missing = [t for t in ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel") if not shutil.which(t)]
    # the daemons run as root; a non-root CI user starts them through passwordless sudo
    as_root = [] if os.geteuid() == 0 else ["sudo", "-n"]
    no_root = bool(as_root) and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode != 0
    if missing or no_root:
        why = f"missing {missing}" if missing else "neither root nor passwordless sudo"
        if os.environ.get("PARAPHRASTIC_REQUIRE_SLURM") == "1":
            pytest.fail(f"PARAPHRASTIC_REQUIRE_SLURM=1 but cannot start SLURM: {why}")
        pytest.skip(f"no local SLURM ({why}; apt-get install slurm-wlm munge, run as root)")
    state = Path(tempfile.mkdtemp(prefix="slurm-", dir="/tmp"))  # short: munge/slurmd sockets live here
    # The node claims more CPUs than the machine's 2, so the tiny jobs run side by side instead of one after another:
    # the SLURM plugin notices a finished job at its next status check, and it spaces those checks 10 s further
    # apart after each that finds none done, so each wave of jobs costs half a minute however short its jobs are.
    started = subprocess.run([*as_root, "env", f"LOCAL_SLURM_CPUS={NODE_CPUS}", "bash", str(CLUSTER), "start",
                              str(state)], capture_output=True, text=True)
    assert started.returncode == 0, started.stdout + started.stderr
    env = dict(os.environ, SLURM_CONF=str(state / "etc" / "slurm.conf"))
    try:
        yield env
    finally:
        subprocess.run([*as_root, "bash", str(CLUSTER), "stop", str(state)], capture_output=True, text=True)
        subprocess.run([*as_root, "rm", "-rf", str(state)], capture_output=True)


def running_jobs(env: dict, needle: str) -> list[str]:
    """The running SLURM jobs whose comment (the plugin's rule_<name>_wildcards_<...>) contains ``needle``."""
    out = subprocess.run(["squeue", "-h", "-t", "RUNNING", "-o", "%i %k"], env=env, capture_output=True,
                         text=True).stdout
    return [job_id for job_id, _, comment in (line.partition(" ") for line in out.splitlines()) if needle in comment]


def running_job(env: dict, needle: str) -> str | None:
    return next(iter(running_jobs(env, needle)), None)


def early_in_training(checkpoints: Path) -> tuple[str, Path] | None:
    """The rule (train_supervised or train_universal) and checkpoint folder of a grouped job that has finished its
    first epoch and has more than two to go, if any."""
    for first in checkpoints.rglob("epoch-1.pt"):
        if not any((first.parent / f"epoch-{e}.pt").exists() for e in range(3, SUPERVISED_EPOCHS + 1)):
            rule = "train_universal" if "universal" in first.relative_to(checkpoints).parts else "train_supervised"
            return rule, first.parent
    return None


def frozen_trainer(checkpoints: Path) -> int | None:
    """Stop (SIGSTOP) the training process that writes ``checkpoints`` (its `--checkpoints` argument) and return its
    pid, or None if none runs: frozen, it cannot finish between the test's look and SLURM's signal."""
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().decode(errors="replace").split("\0")
            cwd = Path(os.readlink(proc / "cwd"))
        except OSError:  # not a process, gone, or not ours
            continue
        written = argv[argv.index("--checkpoints") + 1] if "--checkpoints" in argv[:-1] else None
        if written and (cwd / written).resolve() == checkpoints.resolve():
            try:
                os.kill(int(proc.name), signal.SIGSTOP)
            except ProcessLookupError:
                return None
            return int(proc.name)
    return None


def cancel_frozen(env: dict, jobs: list[str], pid: int | None) -> bool:
    """scancel ``jobs`` once their trainer ``pid`` is frozen; if there are none or that fails (a job ended in
    between), thaw it."""
    if pid is None:
        return False
    if jobs and subprocess.run(["scancel", *jobs], env=env).returncode == 0:
        return True  # SLURM's cancel sends SIGCONT before SIGTERM: the trainer wakes to save its place and stop
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGCONT)
    return False


@pytest.fixture(scope="module")
def slurm_run(request, slurm, tmp_path_factory, mirror):
    with scratch_folder(request, tmp_path_factory, "slurm") as folder:
        yield slurm_pipeline(slurm, folder / "repo", mirror)


def slurm_pipeline(slurm, root: Path, mirror: Path) -> tuple:
    """The tiny pipeline under SLURM, with a training job and a group of supervised jobs cancelled mid-run."""
    root, env = scratch_checkout(root, mirror)
    env.update({k: v for k, v in slurm.items() if k.startswith("SLURM")})
    shutil.copytree(REPO / "tests/slurm/profile", root / "tests/slurm/profile")
    config = yaml.safe_load((root / "params.yaml").read_text())
    config["experiments"][VICTIM]["epochs"] = VICTIM_EPOCHS  # long enough to be caught mid-training
    config["supervised"]["train"]["epochs"] = SUPERVISED_EPOCHS
    (root / "params.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    sh([sys.executable, "-m", "paraphrastic", "grids", "--write", "workflow/runs.yaml"], root, env)
    # What the tested jobs need besides the victim is built first, locally: under SLURM every job runs two Snakemake
    # processes around its command (the submitted job's and its step's), and these add nothing to what is tested.
    others = [f"data/models/{job['run']}/seed{job['seed']}/model.pt"
              for job in JobTables.of(config).experiment_jobs.values() if job["run"] != VICTIM]
    sh([*SNAKEMAKE, *others, "data/supervised/stats.json", "data/corpus/eval.parquet"], root, env)

    env = new_user(root, env)  # the README's `--profile slurm`, found from the checkout's root
    log = open(root / "snakemake-slurm.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(["snakemake", *PROFILES, *OVERRIDE, *UNTIL], cwd=root, env=env, stdout=log,
                            stderr=subprocess.STDOUT)
    checkpoint = root / f"data/checkpoints/{VICTIM}/seed1/epoch-1.pt"
    supervised = root / "data/supervised/checkpoints"
    # a group's members run one after another inside its submission
    cancelled, shown, group, deadline = None, "", None, time.time() + 1800
    while proc.poll() is None and time.time() < deadline and (cancelled is None or group is None):
        if cancelled is None and checkpoint.exists():
            job = running_job(env, f"wildcards_{VICTIM}")
            if job:
                shown = subprocess.run(["scontrol", "show", "job", job], env=env, capture_output=True,
                                       text=True).stdout
                if cancel_frozen(env, [job], frozen_trainer(checkpoint.parent)):
                    cancelled = job  # otherwise it finished in between: the assertion below says so
        if group is None and (caught := early_in_training(supervised)):
            # A group job is named after its group and rules (supervised_train_supervised...), not its members, so
            # every running group of the rule whose member is early in its training is cancelled: a group caught
            # after its members finished would leave nothing to resume (a universal member's five epochs take half a
            # second, hence the freeze)
            rule, folder = caught
            groups = running_jobs(env, rule)
            if cancel_frozen(env, groups, frozen_trainer(folder)):
                group = ",".join(groups)
        time.sleep(0.1)
    rc = proc.wait(timeout=max(deadline - time.time(), 1))
    log.close()
    text = (root / "snakemake-slurm.log").read_text(errors="replace")
    assert rc == 0, text[-6000:]
    return root, env, text, cancelled, shown, group


def test_the_tiny_pipeline_runs_through_slurm_with_the_real_profile(slurm_run):
    root, env, log, _, shown, _ = slurm_run
    config = yaml.safe_load((root / "params.yaml").read_text())
    tables = JobTables.of(config)
    # every scored training job (the explicit experiments' seeds) and every supervised and universal job
    scored = [f"data/results/{job['run']}/seed{job['seed']}.json" for job in tables.experiment_jobs.values()]
    supervised = [root / "data/supervised/models" / ("universal" if universal else "") / job["task"] / job["run"] /
                  f"seed{job['seed']}" for universal in (False, True)
                  for job in tables.supervised_jobs_of(universal=universal).values()]
    assert len(scored) >= 5 and len(supervised) >= 6
    assert all((root / path).is_file() for path in scored), scored
    assert all((folder / "model.pt").is_file() for folder in supervised), supervised
    assert not (root / "data/stanza").exists() and not (root / "data/report").exists()  # outside the --until graph
    # jobs went through SLURM: each has its SLURM log
    assert len(list((root / ".snakemake/slurm_logs").rglob("*.log"))) >= 9
    # a training job as SLURM saw it: the `gpu` partition, one GPU, the config's threads as CPUs, the rule's memory,
    # and the time the documented override gave (`--set-resources train:runtime=...`), which kept the others
    threads = config["threads"]
    assert "Partition=gpu" in shown and re.search(r"TresPerJob=gres[:/]gpu:1\b", shown), shown
    assert f"NumCPUs={threads}" in shown, shown
    hours, minutes = divmod(OVERRIDDEN_RUNTIME, 60)
    assert f"MinMemoryNode={RULES['train']['mem_mb']}M" in shown, shown
    assert f"TimeLimit={hours:02d}:{minutes:02d}:00" in shown, shown


@pytest.mark.fault("interrupted training")
def test_a_cancelled_training_job_is_resubmitted_and_resumes_to_the_same_metrics(slurm_run, tmp_path):
    root, env, log, cancelled, _, _ = slurm_run
    assert cancelled, "the training job finished before it could be cancelled"
    # SLURM's SIGTERM reached the training process, which saved its place before the SIGKILL: each attempt's
    # output is in its SLURM job log, and the rule's log holds the last attempt's
    attempts = "".join(p.read_text(errors="replace") for p in sorted((root / ".snakemake/slurm_logs").rglob("*.log"))
                       if VICTIM in str(p))
    assert "stopped by signal 15" in attempts, attempts[-3000:]
    assert "resuming from" in attempts, attempts[-3000:]
    rule_log = (root / f"logs/train/{VICTIM}.seed1.log").read_text(errors="replace")
    assert "resuming from" in rule_log and f"selected epoch {VICTIM_EPOCHS}" in rule_log, rule_log[-3000:]
    # the uninterrupted reference: the same job run directly, outside SLURM
    reference = tmp_path
    sh([sys.executable, "-m", "paraphrastic", "train", "--run", VICTIM, "--seed", "1",
        "--out-dir", str(reference / "model"), "--checkpoints", str(reference / "ck"),
        "--threads", str(yaml.safe_load((root / "params.yaml").read_text())["threads"]),
        "--no-progress"], root, env)
    ref = json.loads((reference / "model/history.json").read_text())
    got = json.loads((root / f"data/models/{VICTIM}/seed1/history.json").read_text())
    assert len(got) == 4 * VICTIM_EPOCHS  # each quarter of each epoch (evaluate_every: quarter)
    assert [h["loss"] for h in got] == [h["loss"] for h in ref]
    assert [h["per_dataset"] for h in got] == [h["per_dataset"] for h in ref]


def test_second_run_through_slurm_has_nothing_to_do(slurm_run):
    root, env, *_ = slurm_run
    out = sh(["snakemake", *PROFILES, *UNTIL], root, env)
    # (with --until, Snakemake reports an empty plan rather than "Nothing to be done")
    assert re.search(r"^total\s+0$", out, re.M) and "submitted with SLURM" not in out, out[-3000:]


def init_row(root: Path, job: str) -> str:
    """The transfer row a universal job starts from (its universal_init record is data/supervised/init/<row>.json)."""
    return yaml.safe_load((root / "workflow/runs.yaml").read_text())["universal_jobs"][job]["init"]


def slurm_logs(root: Path) -> list[Path]:
    """One log per SLURM submission (the test profile keeps successful jobs' logs too)."""
    return sorted((root / ".snakemake/slurm_logs").rglob("*.log"))


def test_short_jobs_go_to_slurm_in_groups(slurm_run):
    """Supervised, universal and scoring jobs share submissions: far fewer sbatch calls than rule instances."""
    root, *_ = slurm_run
    instances = {rule: len(list((root / "logs" / rule).glob("*.log"))) for rule in GROUPED}
    assert instances["train_supervised"] >= 4 and instances["evaluate"] >= 4, instances
    group_submissions = [p for p in slurm_logs(root) if any(part.startswith("group_") for part in p.parts)]
    attempts_of_groups = len(group_submissions)
    assert 0 < attempts_of_groups < sum(instances.values()), (attempts_of_groups, instances)
    # every submission, the training job's two attempts and the cancelled group's included, against the rule
    # instances that went through SLURM (the grouped rules' and the training job)
    submitted = {p.parent.name if p.parent.name.startswith(("rule_", "group_")) else p.parent.parent.name
                 for p in slurm_logs(root)}
    assert submitted == {"rule_train", *(f"group_{g}" for g in ("scoring_evaluate", "supervised_train_supervised",
                                                                "universal_train_universal"))}, submitted
    assert len(slurm_logs(root)) < sum(instances.values()) + 1, (len(slurm_logs(root)), instances)


@pytest.mark.fault("interrupted training")
def test_a_cancelled_group_is_resubmitted_and_its_jobs_resume_to_the_same_metrics(slurm_run, tmp_path):
    root, env, _, _, _, group = slurm_run
    assert group, "no group of supervised jobs was caught running"
    attempts = "".join(p.read_text(errors="replace") for p in slurm_logs(root) if "group_" in str(p))
    assert "stopped by signal 15" in attempts, attempts[-3000:]
    resumed = [p for p in (root / "logs").glob("train_*/*.log") if "resuming from" in p.read_text(errors="replace")
               and p.parent.name in GROUPED]
    assert resumed, attempts[-3000:]
    # each resumed job against the same job run straight through, outside SLURM
    for log in resumed:
        rule, job = log.parent.name, log.stem  # <task>.<sup_run>.seed<seed>
        task, sup_run, seed = job.split(".")
        folder = f"{'universal/' if rule == 'train_universal' else ''}{task}/{sup_run}/{seed}"
        reference = tmp_path / log.stem
        sh([sys.executable, "-m", "paraphrastic", rule.replace("_", "-"), "--run", sup_run, "--task", task,
            "--seed", seed.removeprefix("seed"), "--supervised-dir", "data/supervised", "--vocab-dir", "data/vocab",
            "--out-dir", str(reference / "model"), "--checkpoints", str(reference / "ck"), "--threads", "1",
            *(["--init", f"data/supervised/init/{init_row(root, job)}.json"] if rule == "train_universal" else []),
            "--no-progress"], root, env)
        ref = json.loads((reference / "model/history.json").read_text())
        got = json.loads((root / f"data/supervised/models/{folder}/history.json").read_text())
        assert len(got) == SUPERVISED_EPOCHS
        assert [h["loss"] for h in got] == [h["loss"] for h in ref], folder


FLIGHT_JOBS = 9  # one-thread jobs, each its own submission: one more than --cores 8


def test_cores_8_as_the_design_types_it_leaves_more_than_8_one_thread_jobs_in_flight(slurm, tmp_path):
    """`snakemake --cores 8 --profile slurm` with the project's profiles (the workflow profile beside the Snakefile):
    `jobs: 50` caps the submissions and `--cores 8` does not, so nine one-thread jobs run at once on a node that has
    the CPUs."""
    folder = tmp_path / "flight"
    (folder / "profiles").mkdir(parents=True)
    shutil.copytree(REPO / "profiles/default", folder / "profiles/default")  # the workflow profile, beside it
    (folder / "slurm").symlink_to(REPO / "profiles/slurm")  # as the checkout's root has it
    local = yaml.safe_load((REPO / "tests/slurm/profile/config.yaml").read_text())
    del local["jobs"]  # the project's profile's `jobs` is the cap under test
    (folder / "local").mkdir()
    (folder / "local/config.yaml").write_text(yaml.safe_dump(local))
    (folder / "Snakefile").write_text(
        f"rule all:\n    input: expand('out/{{i}}.txt', i=range({FLIGHT_JOBS}))\n"
        "rule flight:\n    output: 'out/{i}.txt'\n    threads: 1\n    shell: 'sleep 2; touch {output}'\n")
    env = new_user(folder, slurm | {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"})
    log = open(folder / "snakemake.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(["snakemake", "--cores", "8", "--profile", "slurm", "--profile", "local"], cwd=folder,
                            env=env, stdout=log, stderr=subprocess.STDOUT)
    most, deadline = 0, time.time() + 600
    while proc.poll() is None and time.time() < deadline:
        out = subprocess.run(["squeue", "-h", "-t", "RUNNING", "-o", "%C"], env=env, capture_output=True,
                             text=True).stdout
        most = max(most, sum(int(cpus) for cpus in out.split()))
        time.sleep(0.3)
    rc = proc.wait(timeout=max(deadline - time.time(), 1))
    log.close()
    text = (folder / "snakemake.log").read_text(errors="replace")
    assert rc == 0, text[-4000:]
    assert "Using profiles slurm and local and workflow specific profile profiles/default" in text, text[:2000]
    assert text.count("submitted with SLURM") >= FLIGHT_JOBS or text.count("rule flight") == FLIGHT_JOBS, text[-3000:]
    assert most > 8, (most, text[-3000:])
