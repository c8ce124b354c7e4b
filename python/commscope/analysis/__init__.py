"""Analysis of stored runs: compare, check against baselines, statistics, models."""
