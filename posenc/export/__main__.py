import sys

from posenc.export.cli import main

sys.exit(main())
