"""What a round reads from GitHub: the `Stream` base (stream), the conversation (conversation,
scan, since), the reviews (review_stream, review_listing, review_order), the edit history
(history) and the threads (threads; pr: get_pr_comments). Imports only base/, text/, net/,
store/; never a round or the inbox."""
