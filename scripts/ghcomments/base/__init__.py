"""The ground floor: typed errors and exit codes (errors), signals noted at one commit point
(interrupt), plain records without dataclasses (plain). Imports nothing of the package."""
