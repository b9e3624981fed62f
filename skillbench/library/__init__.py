"""Library routing: which skill of an installed library takes which request, and what Claude
Code's skill listing hides (`skillbench library DIR`, `skillbench.route_library`)."""
