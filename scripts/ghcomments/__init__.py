"""The shared implementation behind scripts/github_issue_comments.py (its public face).

Seams, one module each: errors (typed errors, exit codes), config (repository, URLs, token),
transport (one HTTP request), client (retries, rate limits, links, windows), normalize
(comment shapes, hidden characters), state (files and locks), monitor (the issue-comment
monitor), cli (arguments, output, the one main wrapper).
"""

__version__ = "0.1.0"
