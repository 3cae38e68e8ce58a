import sys

from posenc_export.cli import main

sys.exit(main())
