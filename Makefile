# The two commands of the README: `make run` and `make test`. Everything they need is
# set up here: a Python virtual environment in .venv, an MPI (the one on PATH, or MPICH
# from PyPI), and CMake builds under build/.

PYTHON ?= python3
VENV := .venv
VBIN := $(VENV)/bin
NPROC := $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
# CI sets WERROR=ON
WERROR ?= OFF

.PHONY: all run test venv build unit sanitize flavours cuda-build pytest check lint bench-overhead bench-instructions clean

all: build

# The harness alone, editable: the core is built by `make build` below (under build/, with
# the MPI find-mpi chooses), not by pip. `pip install .` builds both (docs/install.md).
$(VBIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VBIN)/pip install --quiet --upgrade pip
	COMMSCOPE_HARNESS_ONLY=1 $(VBIN)/pip install --quiet -e '.[test]'
	touch $@

venv: $(VBIN)/.installed

# "MPICC LAUNCHER" of the MPI to use; recomputed on every call so a newly installed MPI wins
build/mpi.env: venv FORCE
	@mkdir -p build
	@scripts/find-mpi $(VENV) > $@.tmp && mv $@.tmp $@
FORCE:

# The C unit tests are built and run by `make unit` and `make sanitize` alone; the MPI
# builds (default, flavours, CUDA) pass NO_C_TESTS: the benchmark, its compat names and
# the raw loops. In `make build`, CMAKE_FLAGS comes after it and can turn them back on.
NO_C_TESTS := -DCS_BUILD_TESTS=OFF
build: build/mpi.env
	cmake -S . -B build/default -DCMAKE_C_COMPILER=$$(cut -d' ' -f1 build/mpi.env) -DMPI_C_COMPILER=$$(cut -d' ' -f1 build/mpi.env) \
	      -DCS_WERROR=$(WERROR) $(NO_C_TESTS) $(CMAKE_FLAGS) > build/default.configure.log
	cmake --build build/default -j $(NPROC)

# The default suite on two local ranks, through the harness: tables printed, results
# stored in the user's result database (COMMSCOPE_DB overrides it), and an HTML report
# of these runs written to results/report.html.
RUN_SUITE ?= pt2pt
run: build
	COMMSCOPE_BENCH=$(CURDIR)/build/default/commscope-bench \
	  $(VBIN)/commscope run $(RUN_SUITE) --np 2 --launcher $$(cut -d' ' -f2 build/mpi.env)
	$(VBIN)/commscope report --last-invocation -o results/report.html
	@echo "report: $(CURDIR)/results/report.html"

# MPI-free unit tests (also under AddressSanitizer + UBSan), then the MPI and Python tests.
unit:
	cmake -S . -B build/unit -DCS_WITH_MPI=OFF -DCS_WERROR=$(WERROR) $(CMAKE_FLAGS) > build/unit.configure.log
	cmake --build build/unit -j $(NPROC)
	ctest --test-dir build/unit --output-on-failure

sanitize:
	cmake -S . -B build/sanitize -DCS_WITH_MPI=OFF -DCS_SANITIZE=ON -DCS_WERROR=$(WERROR) \
	      -DCMAKE_BUILD_TYPE=Debug > build/sanitize.configure.log
	cmake --build build/sanitize -j $(NPROC)
	ctest --test-dir build/sanitize --output-on-failure

# the builds the MPI tests run: without CUDA, whether or not this machine has it
flavours: build
	scripts/build-flavours $$(cat build/mpi.env) -DCS_WITH_CUDA=OFF -DCS_WERROR=$(WERROR) $(NO_C_TESTS)

# GPU buffers and NCCL benchmarks, per MPI library, with warnings as errors: build/cuda/NAME,
# listed in build/cuda/flavours.txt. Part of `make test` where nvcc is found.
NVCC := $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
CUDA_BUILD := $(if $(NVCC),cuda-build)
cuda-build: build/mpi.env
	PATH=$(dir $(NVCC)):$$PATH CS_FLAVOUR_DIR=build/cuda scripts/build-flavours $$(cat build/mpi.env) \
	    -DCS_WITH_CUDA=ON -DCS_WITH_NCCL=ON -DCS_WERROR=ON $(NO_C_TESTS)

# every test layer (tests/conftest.py): unit, mpi, browser, and cluster (the virtual cluster: needs root and Slurm)
# in two steps (tests/conftest.py says why): the tests that judge no speed spread over
# TEST_WORKERS processes (most of their time is spent waiting for launches), then the
# `timing` and `heavy` tests alone
# Each step prints its DURATIONS slowest tests (CI's log keeps them; 0: every test's).
TEST_WORKERS ?= 4
DURATIONS ?= 30
pytest: venv flavours $(CUDA_BUILD)
	$(VBIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup -m "not timing and not heavy" --durations=$(DURATIONS)
	$(VBIN)/python -m pytest -m "timing or heavy" --durations=$(DURATIONS)

# Style, as CI checks it: no merge-conflict markers left in tracked files, clang-format for C,
# ruff for Python (configured in pyproject.toml).
# vulture finds dead code: 60 % is its confidence for an unused function, class or
# variable; what it cannot see used (click commands, templates, ReFrame) is whitelisted.
lint: venv
	@! git grep -n -E '^(<<<<<<<|>>>>>>>)( |$$)|^=======$$' -- ':!*.rst' || { echo "lint: merge conflict markers above" >&2; exit 1; }
	scripts/check-format
	$(VBIN)/ruff check python tests performance
	$(VBIN)/ruff format --check python tests performance
	$(VBIN)/vulture python/commscope build_support/vulture_whitelist.py --min-confidence 60

# The fast tier: unit tests and fakes, in about a minute on two cores. No MPI launch (the
# fakes stand in for the core and its launchers), no cluster, no browser, no Prometheus,
# and none of the unit tests marked slow (each takes seconds: commscope started as a child
# process, many fake launches, large figures). `make test` runs all of them.
CHECK_WORKERS ?= 2
check: venv
	$(VBIN)/python -m pytest -n $(CHECK_WORKERS) -q -m "not mpi and not browser and not cluster and not monitoring and not slow"

test: venv build unit sanitize flavours $(CUDA_BUILD) pytest

bench-overhead: flavours
	$(VBIN)/python performance/overhead/run.py

# needs valgrind: instructions per timed iteration, which machine noise cannot change
bench-instructions: flavours
	$(VBIN)/python performance/overhead/instructions.py

clean:
	rm -rf build
