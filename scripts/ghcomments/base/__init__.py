"""The ground floor: typed errors and exit codes (errors), signals noted at one commit point
(interrupt), plain records without dataclasses (plain), URLs split without an exception
(urls), no core file from a child (child). Imports nothing of the package."""
