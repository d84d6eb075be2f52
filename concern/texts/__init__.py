"""The engine's shared words, each a `kernel.catalogue.Catalogue`: `messages` (what a loop says, local times),
`replies` (reactive replies, help, usage lines), `reasons` (why something waits or did not happen; names of states,
results and channels), `press` (toasts and what a press did).
"""
