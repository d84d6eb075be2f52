"""Person layer: the truth about people — identity, channel bindings, interaction policy, work state, manager chain."""
