"""The device option: a device that this machine lacks is one clear error, never a fall-back or a torch traceback;
a job's thread count reaches every library that computes."""

import os

import pytest
import torch

from paraphrastic.errors import PipelineError
from paraphrastic.runtime import prepare_job, resolve_device
from tests.test_encoder import model_file  # noqa: F401  (a fixture)


def no_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


def one_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)


@pytest.mark.fault("device")
@pytest.mark.parametrize("machine, name, message", [
    (no_cuda, "cuda", "device 'cuda': this machine has no CUDA device"),
    (no_cuda, "cuda:0", "device 'cuda:0': this machine has no CUDA device"),
    (one_gpu, "cuda:1", "device 'cuda:1': this machine has 1 CUDA device"),
    (no_cuda, "gpu", "device 'gpu' is not a device"),
    (no_cuda, "", "device '' is not a device"),
    (no_cuda, "cuda:x", "device 'cuda:x' is not a device"),
    (no_cuda, "mps", "device 'mps' is not supported"),
])
def test_a_device_this_machine_lacks_is_a_clear_error(monkeypatch, machine, name, message):
    machine(monkeypatch)
    with pytest.raises(PipelineError, match=message):
        resolve_device(name)


def test_auto_and_cpu(monkeypatch):
    no_cuda(monkeypatch)
    assert resolve_device("auto") == resolve_device("cpu") == torch.device("cpu")
    one_gpu(monkeypatch)
    assert resolve_device("auto") == torch.device("cuda") and resolve_device("cuda:0") == torch.device("cuda:0")


def test_a_job_on_a_gpu_asks_for_deterministic_kernels_and_one_on_the_cpu_changes_nothing(monkeypatch):
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    calls = []
    monkeypatch.setattr(torch, "use_deterministic_algorithms", lambda *a, **kw: calls.append((a, kw)))
    no_cuda(monkeypatch)
    assert prepare_job("cpu") == torch.device("cpu") and calls == [] and "CUBLAS_WORKSPACE_CONFIG" not in os.environ
    one_gpu(monkeypatch)
    assert prepare_job("auto") == torch.device("cuda")
    assert calls == [((True,), {"warn_only": True})] and os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"


@pytest.mark.fault("device")
def test_commands_report_it_in_one_line(monkeypatch, capsys, model_file):  # noqa: F811
    from paraphrastic.cli.main import main

    no_cuda(monkeypatch)
    root = model_file[0].parent
    (root / "s.txt").write_text("a sentence\n")
    for command in (["embed", "--output", str(root / "v.npy")], ["similarity"]):
        assert main([*command, "--model", str(model_file[0]), "--input", str(root / "s.txt"), "--device", "cuda"]) == 1
        err = capsys.readouterr().err
        assert err.startswith("error: device 'cuda': this machine has no CUDA device") and err.count("\n") == 1
    assert not (root / "v.npy").exists()


def test_a_jobs_threads_limit_torch_and_every_blas_and_openmp_library(monkeypatch):
    """Snakemake sets OMP_NUM_THREADS and its kin for a job and DVC does not: set_threads gives both engines the same
    thread counts, for the libraries already loaded (threadpoolctl) and those loaded later (the variables)."""
    import numpy  # noqa: F401  (its BLAS loaded)
    from threadpoolctl import threadpool_info, threadpool_limits

    from paraphrastic.runtime import THREAD_VARIABLES, set_threads

    for name in THREAD_VARIABLES:
        monkeypatch.setenv(name, "2")  # and restored (or removed) after the test
    before = torch.get_num_threads()
    with threadpool_limits(limits=None):  # restores the pools' sizes afterwards
        try:
            set_threads(1)
            assert torch.get_num_threads() == 1
            assert all(pool["num_threads"] == 1 for pool in threadpool_info()), threadpool_info()
            assert all(os.environ[name] == "1" for name in THREAD_VARIABLES)
        finally:
            torch.set_num_threads(before)
