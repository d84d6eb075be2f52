"""Action layer: the only code that acts on the outside world — six action types through four
anti-harassment layers, channel choice and fallback, action records and action_result facts.
It does not decide whether to act. Not built yet."""
