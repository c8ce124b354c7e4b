#!/bin/bash
# commscope batch job: latency bw on 4 node(s) x 8 task(s)
# Written by commscope 0.1.0 at 2026-11-23T10:00:00+00:00; `commscope collect` stores its results.
#SBATCH --job-name=commscope-latency
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=8
#SBATCH --output=/home/alice/commscope-jobs/job-1/slurm-%j.out
#SBATCH --chdir=/home/alice/commscope-jobs/job-1
#SBATCH --partition=64c512g
#SBATCH --account=hpc
#SBATCH --qos=normal
#SBATCH --time=0:30:00
#SBATCH --constraint=ib&intel
#SBATCH --exclusive
#SBATCH --mem=0

# Site set-up from the configuration file, as written there.
ulimit -l unlimited
module load openmpi/4.1.5
module load osu
export UCX_NET_DEVICES=mlx5_0:1

# Each benchmark's results are written to runs/ as they are measured, so a job that is
# cancelled or runs out of time keeps the sizes it finished.
/opt/commscope/bin/commscope run latency bw --no-store --output-dir /home/alice/commscope-jobs/job-1/runs --launcher srun --transport net --label acceptance --np 4 --timeout 600 --repeat 3 -- -m 1:1M -c
status=$?
echo "$status" > /home/alice/commscope-jobs/job-1/exit-status
exit "$status"
