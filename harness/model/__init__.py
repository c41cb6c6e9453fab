"""What a kernel is: its description, its sources, their calling convention, and
how its outputs are judged (verification, RAJAPerf's checksums)."""
