"""Slurm: job scripts rendered from a template, sbatch, job states, collecting finished jobs into the store."""
