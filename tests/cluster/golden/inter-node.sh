#!/bin/bash
# commscope batch job: quick on 2 node(s) x 1 task(s)
# Written by commscope 0.1.0 at 2026-11-23T10:00:00+00:00; `commscope collect` stores its results.
#SBATCH --job-name=commscope-quick
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --output=/home/alice/commscope-jobs/job-1/slurm-%j.out
#SBATCH --chdir=/home/alice/commscope-jobs/job-1


# Each benchmark's results are written to runs/ as they are measured, so a job that is
# cancelled or runs out of time keeps the sizes it finished.
/opt/commscope/bin/commscope run quick --no-store --output-dir /home/alice/commscope-jobs/job-1/runs --launcher auto
status=$?
echo "$status" > /home/alice/commscope-jobs/job-1/exit-status
exit "$status"
