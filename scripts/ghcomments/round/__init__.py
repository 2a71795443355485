"""One round: engine (check and its promises), layouts (issue and pull-request rounds),
reading, filters, hints, budget, confirm, selectors, wait. Imports only the floors below;
never the inbox."""
