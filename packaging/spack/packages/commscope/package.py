# commscope's measurement core for Spack: commscope-bench and the osu_* compat programs.
# docs/install.md ("Spack") says how to use it; tests/unit/test_spack_recipe.py checks that
# every CMake variable set here is one CMakeLists.txt declares.

import os

from spack.package import *

try:  # Spack 1.x: the build systems live in the builtin repository
    from spack_repo.builtin.build_systems.cmake import CMakePackage

    _LANGUAGE_DEPENDENCIES = True
except ImportError:  # Spack 0.x: spack.package exports them, and every node gets a compiler
    _LANGUAGE_DEPENDENCIES = False

# No tarballs or tags are published yet: the recipe ships inside the repository and
# builds the git checkout it sits in (packaging/spack/packages/commscope/ is four folders
# below the root). Another checkout: `packages: commscope: package_attributes: git:` in
# packages.yaml, or `spack develop`.
_CHECKOUT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), *[os.pardir] * 4))


class Commscope(CMakePackage):
    """MPI communication benchmarks, an OSU Micro-Benchmarks successor: commscope-bench
    measures latency, bandwidth, collectives and one-sided communication on host or GPU
    buffers; osu_latency, osu_bw, ... run the matching benchmark, so job scripts written
    for the OSU Micro-Benchmarks run unchanged."""

    homepage = "https://commscope.invalid"
    git = "file://" + _CHECKOUT

    # commscope@main builds the branch; any other commit or branch as a version:
    # commscope@git.<ref>=main
    version("main", branch="main")

    # GPU buffers through the CUDA runtime API (src/mem/cuda.c): plain C calls, no device
    # code, so no cuda_arch (which CudaPackage would add).
    variant("cuda", default=False, description="Host and GPU buffers (-d cuda), with the CUDA runtime")
    variant("nccl", default=False, when="+cuda", description="NCCL benchmarks (nccl_allreduce, ...)")

    depends_on("cmake@3.21:", type="build")
    depends_on("mpi")
    depends_on("cuda", when="+cuda")
    depends_on("nccl", when="+nccl")
    if _LANGUAGE_DEPENDENCIES:
        depends_on("c", type="build")

    def cmake_args(self):
        spec = self.spec
        args = [
            # The MPI the spec chose, not whatever mpicc comes first on PATH
            self.define("MPI_C_COMPILER", spec["mpi"].mpicc),
            # Tests and overhead loops are for developers (the pip build leaves them out too)
            self.define("CS_BUILD_TESTS", False),
            self.define("CS_BUILD_BENCH_TOOLS", False),
            # ON or OFF, never the CMake default AUTO: a spec without +cuda must not pick up
            # a CUDA that happens to be on the build machine
            self.define("CS_WITH_CUDA", "ON" if spec.satisfies("+cuda") else "OFF"),
            self.define("CS_WITH_NCCL", "ON" if spec.satisfies("+nccl") else "OFF"),
        ]
        if spec.satisfies("+cuda"):
            args.append(self.define("CUDAToolkit_ROOT", spec["cuda"].prefix))
        return args

    def setup_build_environment(self, env):
        # CMakeLists.txt looks for nccl.h and libnccl under $NCCL_HOME
        if self.spec.satisfies("+nccl"):
            env.set("NCCL_HOME", self.spec["nccl"].prefix)

    def setup_run_environment(self, env):
        # `spack load commscope` puts osu_latency, osu_bw, ... on PATH, as the modules that
        # `commscope modulefile` and EasyBuild write do
        env.prepend_path("PATH", join_path(self.prefix.libexec, "commscope", "compat"))

    @run_after("install")
    @on_package_attributes(run_tests=True)
    def check_installation(self):
        # `spack install --test=root`: the core and one compat name answer --version
        Executable(join_path(self.prefix.bin, "commscope-bench"))("--version")
        Executable(join_path(self.prefix.libexec, "commscope", "compat", "osu_latency"))("--version")
