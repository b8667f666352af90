"""``python -m minitorch.course`` opens the course in JupyterLab (see ``launcher.py``)."""

import sys

from minitorch.course.launcher import main

sys.exit(main())
