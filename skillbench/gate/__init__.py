"""Did this pull request make the skill worse? Base (the skill at a git ref) against head (the
working tree), paired run by run, with a power plan and an A/A calibration (issue 25)."""
