"""Only the build step: a wheel carries copies of the files the command reads by default (the params.yaml
schema, the sources manifest and the two configs; paraphrastic.resources.SHIPPED) in paraphrastic/_resources/,
so the installed `paraphrastic` works from any directory. Everything else is in pyproject.toml."""

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

sys.path.insert(0, str(Path(__file__).parent / "src"))
from paraphrastic.resources import SHIPPED  # noqa: E402  (the package's own list; it imports nothing else)


class BuildWithResources(build_py):
    def run(self):
        super().run()
        for name in SHIPPED:
            target = Path(self.build_lib) / "paraphrastic" / "_resources" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(name, target)


setup(cmdclass={"build_py": BuildWithResources})
