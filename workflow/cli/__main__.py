"""``python -m authbench.cli <step>``."""

import sys

from authbench.cli import main

if __name__ == "__main__":  # vLLM's engine process re-imports the main module: no second run there
    sys.exit(main())
