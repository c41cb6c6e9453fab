"""The process that worker processes are forked from.

It imports the harness's worker side once, so each worker starts without
importing it again; no driver library is loaded there (a worker loads its
own), since CUDA, for one, does not survive a fork. It is started before the
command loads the rest of the harness, so that both load at the same time.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing import forkserver

CONTEXT = multiprocessing.get_context("forkserver")
CONTEXT.set_forkserver_preload(["harness.workers"])


def start() -> None:
    """Start the server now (it keeps loading in the background)."""
    forkserver.ensure_running()
