"""A fix's SAFE part writes only statements about its own sections, none about a disruptive one (a classifier, a PFC
code point, a trust change), for every platform and every generated policy: the statements are read by what they say
(tests/part_sections.py), not by the template branch that wrote them. Junos's watchdog section rebound the port's
congestion notification profile with the policy's PFC code points and rebuilt its DSCP classifier, inside a part
labelled safe (`ecn, scheduler, watchdog`)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from losslessd import fix
from losslessd import render as rnd
from losslessd.api import lint
from losslessd.errors import InputError
from losslessd.policy import Policy
from tests import render_golden
from tests.part_sections import outside
from tests.test_render_policies import (PORTS, REFUSALS, TARGETS, _WATCHDOG_100, _device, _policy, _render,
                                        policies, profile_of)

SAFE = sorted(rnd.SECTIONS - rnd.DISRUPTIVE_SECTIONS - {"ports", "routing", "election", "timers", "sl2vl"})


@pytest.mark.parametrize(("platform", "variant"), TARGETS)
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(pol=policies(), specs=st.lists(st.sampled_from(PORTS), min_size=1, max_size=2).map(tuple),
       sections=st.sets(st.sampled_from(SAFE), min_size=1))
def test_a_safe_sections_render_writes_only_their_statements(platform, variant, pol: Policy, specs, sections):
    """Any set of safe sections rendered on its own (as a fix renders its safe part) writes no statement about
    another section, nor about a disruptive one beside its own."""
    try:
        _render(pol, platform, variant, specs)
    except InputError as exc:
        assert any(reason in str(exc) for reason in REFUSALS), str(exc)
        return
    prof = profile_of(pol, platform, variant, specs)
    try:
        text = rnd.render(platform, rnd.restrict(prof, sections))
    except InputError as exc:  # (a section the platform's facts here cannot give: the fix says so, prints nothing)
        assert any(reason in str(exc) for reason in REFUSALS), str(exc)
        return
    assert outside(platform, text, sections, safe=True) == []

