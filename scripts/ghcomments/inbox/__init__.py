"""Many conversations in one check, one wait, one confirm (CONTRACT section 18): inbox,
inbox_wait, inbox_confirm, members (a followed round as a round). Imports any floor below;
nothing imports it but the face."""
