"""``python -m posenc ...`` is the ``posenc`` command (handy in a clone that was never installed)."""

import sys

from posenc.commands.router import main

sys.exit(main())
