"""The modes a row can be measured in, besides its kernel and size: where its data
lives while it is timed (`TRANSFER_MODES`, see `harness.execution.transfers`) and
whether caches are flushed between repetitions (`CACHE_MODES`, see
`harness.execution.flush`). Readers of run folders check rows against them."""

#: Where a kernel's data lives while it is timed; the first is the default.
TRANSFER_MODES = ("resident", "per-rep", "per-launch")
#: Cache modes a row can be measured in; the first is the default.
CACHE_MODES = ("hot", "cold")
