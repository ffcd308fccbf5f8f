"""Exceptions whose messages name the file (and line) at fault."""

from __future__ import annotations


class PipelineError(Exception):
    """Base class: anything the pipeline reports to a user as a clear, actionable error."""


class MalformedLine(PipelineError):
    def __init__(self, path, line_number: int, reason: str, line: str | None = None):
        shown = "" if line is None else f": {line[:120]!r}"
        super().__init__(f"{path}:{line_number}: {reason}{shown}")
        self.path, self.line_number, self.reason = str(path), line_number, reason


class ChecksumMismatch(PipelineError):
    def __init__(self, name: str, origin: str, expected: str, actual: str):
        super().__init__(
            f"checksum mismatch for {name} (from {origin}): expected sha256 {expected}, got {actual}"
        )
        self.expected, self.actual = expected, actual


class TruncatedDownload(PipelineError):
    pass


class MissingSource(PipelineError):
    pass


class TrainingDiverged(PipelineError):
    pass


class TrainingInterrupted(PipelineError):
    """SIGTERM (SLURM preemption, scancel, a time limit): a checkpoint was saved and the job stopped."""

    exit_code = 143  # 128 + SIGTERM, what schedulers expect of a job that honoured the signal


class DamagedCheckpoint(PipelineError):
    """A checkpoint file a job cannot use (unreadable, refused, or not fitting its model). Checkpoints are the
    job's own scratch and training is deterministic: the trainer discards them and trains again from the start
    (:func:`paraphrastic.training.epochs.recover_damaged_checkpoints`), reaching the same result."""

    def __init__(self, path, reason: str, job: str | None = None):
        super().__init__(f"{path}: damaged checkpoint: {reason}")
        self.path, self.reason, self.job = str(path), reason, job
