"""What is printed and how fields are made safe: normalize (comment shapes, hidden characters,
checked fields), tokens (secrets scrubbed), output (JSON encoding), render (summaries).
Imports only base/."""
