# The two commands: `make demo` and `make test`. Everything a fresh machine needs is here.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check -q

.PHONY: demo test test-fast lint lint-baseline venv test-deps deb-deps golden bench schemas clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -e '.[sim]'
	touch $@

$(VENV)/.test-installed: $(VENV)/.installed pyproject.toml
	$(PIP) install -e '.[test,dev]'
	touch $@

# The package byte-compiled, again whenever a source changes: where PYTHONDONTWRITEBYTECODE is set or the
# source folder is read-only, Python would otherwise compile every module on every start (a lint of the
# example fabric: 340 ms instead of 240 ms).
SOURCES := $(shell find losslessd -name '*.py')
$(VENV)/.bytecode: $(VENV)/.installed $(SOURCES)
	$(PY) -m compileall -q losslessd
	touch $@

venv: $(VENV)/.installed $(VENV)/.bytecode

test-deps: $(VENV)/.test-installed $(VENV)/.bytecode

# Debian tools some tests and benches use: promtool (Prometheus rules), snmpd and the net-snmp tools
# (the fast SNMP path's SNMPv3 peer, bench/daemon_scale.py's agents and net-snmp reference), valgrind (the
# instruction counts of bench/startup.py and of the slow tests that count a regular expression's work).
# Installed only when missing and when this is root with apt-get; otherwise the tests that need
# them skip and say why.
DEB_TOOLS = promtool:prometheus /usr/sbin/snmpd:snmpd snmpset:snmp snmpbulkwalk:snmp valgrind:valgrind
deb-deps:
	@missing=""; for pair in $(DEB_TOOLS); do tool=$${pair%%:*}; pkg=$${pair#*:}; \
	  command -v $$tool >/dev/null 2>&1 || case " $$missing " in *" $$pkg "*) ;; *) missing="$$missing $$pkg";; esac; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian packages:$$missing"; \
	    (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing) \
	      || echo "could not install$$missing: the tests that need them skip"; \
	  else echo "not root or no apt-get:$$missing not installed; the tests that need them skip"; fi; fi

# Lint the bundled example fabrics (RoCE, then InfiniBand). They carry deliberate mistakes, so
# findings (exit 1) are the expected outcome; only an input/usage error (exit 2) fails the demo.
# Then pull the RoCE fabric from the simulator and lint that, and watch the daemon report a
# simulated PFC storm.
demo: venv
	@echo "== losslessd lint examples/fabric --policy roce-dscp26"
	@$(VENV)/bin/losslessd lint examples/fabric --policy roce-dscp26; rc=$$?; \
	  if [ $$rc -gt 1 ]; then exit $$rc; fi
	@echo "== losslessd lint examples/infiniband --policy infiniband"
	@$(VENV)/bin/losslessd lint examples/infiniband --policy infiniband; rc=$$?; \
	  if [ $$rc -gt 1 ]; then exit $$rc; fi
	@LOSSLESSD=$(CURDIR)/$(VENV)/bin/losslessd sh examples/pull-demo.sh
	@$(PY) examples/daemon-demo.py --losslessd $(CURDIR)/$(VENV)/bin/losslessd

# Two workers (pytest-xdist), each taking whole test files: the simulator and daemon tests wait on
# events, so they share the cores with the in-process tests; TEST_WORKERS=0 runs in one process.
TEST_WORKERS ?= 2
test: test-deps deb-deps
	$(PY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile

# The inner loop: everything but the tests marked `slow` (they start the simulator, the daemon, the
# program itself, or build a wheel). A test left in it that starts a process fails and says so.
test-fast: test-deps
	$(PY) -m pytest -q -p no:cacheprovider -m "not slow" -n $(TEST_WORKERS) --dist loadfile

# The ruff and mypy gates (tests/test_gates.py runs them in `make test`): findings are compared with
# tests/gates-baseline.json per file and rule; new ones are named, and the baseline only goes down.
lint: test-deps
	$(PY) -m tests.gates

# After fixing findings: write the lower counts into tests/gates-baseline.json (refused if a total rises).
lint-baseline: test-deps
	$(PY) -m tests.gates --update

# Regenerate the parser and render golden files after an intended parser or template change (review the diff!).
golden: test-deps
	$(PY) -m tests.golden
	$(PY) -m tests.render_golden

# Benchmarks print figures (poll_rate and daemon_scale compare with net-snmp's snmpbulkwalk; daemon_scale
# runs net-snmp's snmpd as the simulated fleet's agents).
bench: test-deps deb-deps
	$(PY) bench/lint_scale.py
	$(PY) bench/startup.py
	$(PY) bench/deadlock_scale.py
	$(PY) bench/poll_rate.py
	$(PY) bench/daemon_scale.py
	$(PY) bench/tune_eval.py
	$(PY) bench/parse_growth.py
	$(PY) bench/yaml_read.py

# Regenerate the committed JSON schemas (policies/schema.json, docs/inventory.schema.json) from their models, and
# the rule list `losslessd rules` prints (losslessd/data/rules.txt) from the rules.
schemas: venv
	$(PY) -m losslessd.schemas
	$(PY) -m losslessd.lint.index

clean:
	rm -rf $(VENV) build dist *.egg-info .mypy_cache .ruff_cache
