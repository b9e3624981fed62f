"""Does the skill trigger when it should, and only then? Eval sets, runs, reports, frames, plots."""
