# Everything a fresh machine with Python 3 needs: `make test`, `make demo`,
# `make install-skill DEST=DIR`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The pinned installers the tests drive (tools/install_test_tools.py), kept across clones.
TOOLS ?= $(or $(GH_MONITOR_TEST_TOOLS),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/gh-issue-comment-monitor/test-tools)
# The Claude Code CLI offline: no updater, telemetry or error reports.
CLAUDE_ENV := DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
  DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1

.PHONY: install install-skill test test-tools lint bench demo clean workers

install: $(STAMP)

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP)

# Two xdist workers per core by default (one fake GitHub each; worksteal evens out the long
# files): a test spends about half its time waiting (servers that answer late, scaled waits,
# a lock's 5 s), so two a core keep the CPUs busy. WORKERS=0 runs in one process. The wall
# time, commit and date land in .tmp/suite-time.json.
WORKERS ?= $(shell $(PYTHON) -c 'import os; print(min(16, 2 * len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 2 * (os.cpu_count() or 1)))')
test: install test-tools
	GH_MONITOR_TEST_TOOLS="$(TOOLS)" GH_MONITOR_SUITE_TIME=.tmp/suite-time.json \
	  $(BIN)/python -m pytest -n $(WORKERS) --dist worksteal tests

# The worker count `make test` uses (.ci/run's Python 3.9 pass asks for it too).
workers:
	@echo $(WORKERS)

# The real installers that tests/test_install_channels.py drives (uv from PyPI; the Claude Code,
# Copilot and Codex CLIs and `skills` from npm), pinned, into $(TOOLS) once; one that cannot be
# had makes its tests skip.
test-tools: install
	@$(BIN)/python tools/install_test_tools.py --dest "$(TOOLS)"

# Offline: the real scripts against the fake GitHub on 127.0.0.1 (no token, no GitHub access).
demo: install
	$(BIN)/python tests/demo.py

# The bundle against `gh api --paginate` and naive paging on the fake GitHub (no GitHub access);
# Markdown on stdout and in bench-results.md.
bench: install
	$(BIN)/python tests/bench.py

# The skill as users get it: only what ships, into DEST/gh-issue-comment-monitor (plain python3,
# no .venv). FORCE=1 replaces a folder there that is not a previous install.
install-skill:
	@$(PYTHON) tools/install_skill.py --dest "$(DEST)" $(if $(filter-out 0,$(FORCE)),--force)

# check_layers: the package's floors import only downward (docs/reference.md, "The map").
# agentskills validates the installed shape: the files install-skill copies, nothing else;
# `claude plugin validate --strict` the plugin marketplace, when the CLI is there (make test-tools).
lint: install
	$(BIN)/ruff check .
	$(BIN)/python tools/check_layers.py
	@if ls scripts/*.sh >/dev/null 2>&1; then \
	  if command -v shellcheck >/dev/null; then shellcheck scripts/*.sh; \
	  else echo "shellcheck not installed: shell scripts not linted" >&2; \
	       [ -z "$$CI" ] || exit 1; fi; fi
	@d=$$(mktemp -d) && \
	  $(BIN)/python tools/install_skill.py --dest "$$d" >/dev/null && \
	  $(BIN)/agentskills validate "$$d/gh-issue-comment-monitor"; rc=$$?; rm -rf "$$d"; exit $$rc
	@claude=$$(command -v claude || ls "$(TOOLS)"/claude/node_modules/.bin/claude 2>/dev/null); \
	  if [ -n "$$claude" ]; then \
	    h=$$(mktemp -d) && HOME="$$h" $(CLAUDE_ENV) "$$claude" plugin validate . --strict \
	      >"$$h/out" 2>&1; rc=$$?; [ $$rc -eq 0 ] || cat "$$h/out" >&2; \
	    tail -n 1 "$$h/out"; rm -rf "$$h"; exit $$rc; \
	  else echo "claude CLI not installed: plugin manifests not validated (make test-tools)" >&2; fi

clean:
	rm -rf $(VENV) .venv39 .pytest_cache .ruff_cache .hypothesis .tmp bench-results.md
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
