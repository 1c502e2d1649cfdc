"""``python -m authbench.cli <step>``."""

import sys

from authbench.cli import main

sys.exit(main())
