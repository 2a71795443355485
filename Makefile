# Everything a fresh machine with Python 3 needs: `make test`, `make demo`,
# `make install-skill DEST=DIR`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install install-skill test lint bench demo clean

install: $(STAMP)

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP)

test: install
	$(BIN)/python -m pytest tests

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

# agentskills validates the installed shape: the files install-skill copies, nothing else.
lint: install
	$(BIN)/ruff check .
	@if ls scripts/*.sh >/dev/null 2>&1; then \
	  if command -v shellcheck >/dev/null; then shellcheck scripts/*.sh; \
	  else echo "shellcheck not installed: shell scripts not linted" >&2; \
	       [ -z "$$CI" ] || exit 1; fi; fi
	@d=$$(mktemp -d) && \
	  $(BIN)/python tools/install_skill.py --dest "$$d" >/dev/null && \
	  $(BIN)/agentskills validate "$$d/gh-issue-comment-monitor"; rc=$$?; rm -rf "$$d"; exit $$rc

clean:
	rm -rf $(VENV) .venv39 .pytest_cache .ruff_cache .hypothesis .tmp bench-results.md
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
