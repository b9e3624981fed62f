"""Agent sessions on a Ray cluster, under one rate limit for the whole cluster (`--cluster`).

`connect` resolves `--cluster` / `$SKILLBENCH_CLUSTER` / `$RAY_ADDRESS`, checks the `ray` extra
and the cluster (exit 2 naming the fix, before any work) and installs a placer
(`skillbench.backends.placement`) so every session backend's judge or executor runs its sessions
as Ray tasks (`remote`). Each task needs one `agent_slot` (`slots`); the skill folder and input
files travel through the object store (`payload`). The sessions' API calls go through a loopback
proxy per node (`proxy`) that asks one limiter actor (`limiter`, the AIMD of
`backends.limiter`) before forwarding. The driver stays the only writer: results come
back to it and are cached and written there, keyed by run identity. See docs/cluster.md.
"""
