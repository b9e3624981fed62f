"""Is the skill valid? The rule table with stable codes, for one skill or a whole library."""
