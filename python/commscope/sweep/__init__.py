"""Link sweeps: run a pair schedule in one job, flag, retest suspects alone, report (`commscope sweep`)."""
