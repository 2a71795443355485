"""What a round reads from GitHub: the issue stream (streams, scan, since), the review stream
(review_stream, review_listing, review_order), threads and pr (GraphQL review threads and
get_pr_comments). Imports only base/, text/, net/, store/; never a round or the inbox."""
