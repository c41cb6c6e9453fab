"""Running kernels: planning tasks, executing and timing them (in worker processes),
and the run folder that records every row and the run's metadata."""
