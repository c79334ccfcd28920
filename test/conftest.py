"""Test-suite set-up shared by every directory: ``test/numerics`` on the import path, so
any test can import the independent exact-sum reference (``exact_reference``)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "numerics"))
