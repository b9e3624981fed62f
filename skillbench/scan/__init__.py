"""`skillbench scan`: supply-chain risks in a skill before anyone runs it (secrets, hidden text,
injected instructions, risky scripts, risky frontmatter)."""
