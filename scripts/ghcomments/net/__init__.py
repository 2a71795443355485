"""Talking to GitHub: config (repository, URLs, token), transport (one HTTP request: requests,
the stdlib 304 path, gh), client (retries, rate limits, links), throttle, connect (the client
a command uses). Imports only base/ and text/; never a state file."""
