"""Files under .tmp: state (paths, locks, atomic writes), records (checkpoint shapes), edits
(edit watermarks), refs (round keys), inbox_file and following (the followed rounds), context
(one command's target, paths and client). Imports only base/, text/, net/."""
