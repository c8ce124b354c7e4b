# commscope's harness for Spack: the `commscope` command, run against the core that the
# commscope recipe beside this one installs. docs/install.md ("Spack") says how to use it;
# tests/unit/test_spack_recipe.py checks the dependencies against pyproject.toml.

import os

from spack.package import *

try:  # Spack 1.x: the build systems live in the builtin repository
    from spack_repo.builtin.build_systems.python import PythonPackage
except ImportError:  # Spack 0.x: spack.package exports them
    pass

# As for the core: the recipe builds the git checkout it sits in (see commscope/package.py)
_CHECKOUT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), *[os.pardir] * 4))


class PyCommscope(PythonPackage):
    """commscope runs commscope-bench (an OSU Micro-Benchmarks successor) through mpirun,
    mpiexec or srun, stores every result with its provenance in SQLite, compares runs and
    imports OMB, IMB and JUBE results."""

    homepage = "https://commscope.invalid"
    git = "file://" + _CHECKOUT

    version("main", branch="main")

    # The core is its own recipe (CMake, MPI, CUDA); this one installs the harness alone
    depends_on("commscope", type="run")

    depends_on("python@3.11:", type=("build", "run"))
    depends_on("py-scikit-build-core@1.1:", type="build")

    # pyproject.toml's dependencies, with its lower bounds
    depends_on("py-click@8.1:", type=("build", "run"))
    depends_on("py-rich@13:", type=("build", "run"))
    depends_on("py-pydantic@2:", type=("build", "run"))
    depends_on("py-pyyaml@6:", type=("build", "run"))
    depends_on("py-jinja2@3.1:", type=("build", "run"))
    depends_on("py-markupsafe@2.1:", type=("build", "run"))
    depends_on("py-platformdirs@3:", type=("build", "run"))
    depends_on("py-jsonschema@4.18:", type=("build", "run"))
    depends_on("py-fastjsonschema@2.19:", type=("build", "run"))
    depends_on("py-numpy@1.24:", type=("build", "run"))
    depends_on("py-scipy@1.15:", type=("build", "run"))
    depends_on("py-matplotlib@3.8:", type=("build", "run"))
    depends_on("py-python-hostlist@1.21:", type=("build", "run"))
    depends_on("py-prometheus-client@0.20:", type=("build", "run"))

    def setup_build_environment(self, env):
        # pyproject.toml's switch for the harness alone: no CMake, no MPI in this build
        env.set("COMMSCOPE_HARNESS_ONLY", "1")

    def setup_run_environment(self, env):
        # the harness runs the core it was installed with, whatever else is on PATH
        env.set("COMMSCOPE_BENCH", join_path(self.spec["commscope"].prefix.bin, "commscope-bench"))
