"""Rule families, one module each (common.py holds what several share; SYS900 is lint/internal.py). Importing this
package registers every rule."""

from . import sys  # noqa: F401  (keep first: SYS codes report inputs)
from . import map, nic, pfc  # noqa: F401
from . import buf, ecn, wdg  # noqa: F401
from . import ibs  # noqa: F401
from . import lnk, pth  # noqa: F401
from . import dlk  # noqa: F401
from . import sel  # noqa: F401
from . import sch  # noqa: F401
