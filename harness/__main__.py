"""``python -m harness``: the same as the ``harness`` command."""

import sys

from harness.launch import main

sys.exit(main())
