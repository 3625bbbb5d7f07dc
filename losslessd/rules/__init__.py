"""Rule families, one module each (common.py holds what several share; SYS900 is lint/internal.py). A family is
imported when a run selects one of its rules (lint.registry.rules_of: family XYZ is xyz.py), every family by
lint.registry.all_rules."""
