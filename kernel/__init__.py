"""The shared kernel: what every layer uses and that knows no layer (unit of work, database, clock, ids, errors,
pagination, input limits, the process metrics registry, wake-ups)."""
