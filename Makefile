# Everything a fresh machine with Python 3 needs: `make test`, `make demo`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test lint bench demo clean

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

lint: install
	$(BIN)/ruff check .
	@if ls scripts/*.sh >/dev/null 2>&1; then \
	  if command -v shellcheck >/dev/null; then shellcheck scripts/*.sh; \
	  else echo "shellcheck not installed: shell scripts not linted" >&2; \
	       [ -z "$$CI" ] || exit 1; fi; fi
	@if [ -f SKILL.md ]; then \
	  d=$$(mktemp -d) && mkdir "$$d/gh-issue-comment-monitor" && \
	  cp -R SKILL.md scripts docs "$$d/gh-issue-comment-monitor/" 2>/dev/null; \
	  $(BIN)/agentskills validate "$$d/gh-issue-comment-monitor"; rc=$$?; rm -rf "$$d"; exit $$rc; fi

clean:
	rm -rf $(VENV) .venv39 .pytest_cache .ruff_cache .hypothesis .tmp bench-results.md
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
