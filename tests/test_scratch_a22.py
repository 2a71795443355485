from tests.test_inbox import *  # noqa
from tests.test_inbox import gh, inbox, follow_all, settle, latest  # noqa


def test_user_counts(gh, tmp_path):
    for args in ([], ["--humans-only"], ["--ignore-author", "@me", "--humans-only"]):
        r = inbox(gh, tmp_path, *follow_all(), *args)
        assert r.code == 0, r
        print(args, len([q for q in gh.requests if q.path == "/user"]), len(gh.requests),
              [q.path for q in gh.requests if q.path == "/graphql"].__len__())
    settle(gh, tmp_path)
    for args in ([], ["--ignore-author", "@me", "--humans-only"]):
        r = inbox(gh, tmp_path, *follow_all(), *args)
        print("idle", args, [(q.method, q.path, q.status) for q in gh.requests])
    assert 0
