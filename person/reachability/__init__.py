"""The reachability model (SPEC §5.1): when and how a person can be reached, and why, in their language."""
