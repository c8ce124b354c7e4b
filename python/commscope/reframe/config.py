"""A ReFrame configuration for this machine alone: the local scheduler, and the MPI launcher
named by $COMMSCOPE_RFM_LAUNCHER (mpiexec, mpirun or srun; default mpiexec). A cluster
uses its own site configuration instead; the commscope tests need nothing special in it.

    reframe -C $(python -c 'import commscope.reframe.config as c; print(c.__file__)') \\
            -c $(python -c 'import commscope.reframe.checks as c; print(c.__file__)') -r
"""

import os

site_configuration = {
    "systems": [
        {
            "name": "local",
            "descr": "this machine (commscope.reframe.config)",
            "hostnames": [".*"],
            "modules_system": "nomod",
            "partitions": [
                {
                    "name": "default",
                    "scheduler": "local",
                    "launcher": os.environ.get("COMMSCOPE_RFM_LAUNCHER", "mpiexec"),
                    "environs": ["builtin"],
                    "max_jobs": 1,
                }
            ],
        }
    ],
    "environments": [{"name": "builtin", "cc": "mpicc"}],
}
