"""Field truth: what real agent sessions recorded about skills (`skillbench field`).

`records` (one JSON record per user turn), `reader` (streaming, incremental JSONL reading),
one importer per agent behind `importers` (`claude`), `report` (exposure, proactive rates with
Wilson intervals, slash share, late-slash misses, starvation, competition), `mine` (trigger-eval
rows with provenance). Nothing here sends anything anywhere.
"""
