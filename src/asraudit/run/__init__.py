"""The job grid: job keys (spec), the result store, and executors."""
