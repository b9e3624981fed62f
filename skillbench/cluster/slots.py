"""How many agent sessions a node can hold: its `agent_slot` count.

A `claude -p` session is a Node.js process of about 300 MB resident that mostly waits for the
API; it needs little CPU but its memory is real. So a node gets one slot per `GB_PER_SLOT` of
memory left after `RESERVED_GB` for the system and Ray itself (about 1 GB on a small node), and
at most `SLOTS_PER_CORE` per core (tool calls — builds, tests, scripts — are what use the CPU).
docs/cluster.md gives the same rule for declaring nodes by hand and in KubeRay.
"""

from __future__ import annotations

import os

GB_PER_SLOT = 0.5
RESERVED_GB = 1.5
SLOTS_PER_CORE = 2


def suggested_slots(memory_gb: float, cores: int) -> int:
    """Slots for a node with `memory_gb` of memory and `cores` cores (at least 1)."""
    by_memory = int(max(0.0, memory_gb - RESERVED_GB) / GB_PER_SLOT)
    return max(1, min(by_memory, SLOTS_PER_CORE * max(1, cores)))


def this_machine_slots() -> int:
    """`suggested_slots` for this machine (available memory, usable cores)."""
    try:
        pages = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory_gb = pages / 1024**3
    except (ValueError, OSError, AttributeError):
        memory_gb = 4.0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return suggested_slots(memory_gb, cores or 1)
