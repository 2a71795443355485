"""Naming a round (CONTRACT section 18): every REF form, the hosts a command takes, and a fuzz
of the parser (a REF is a usage error or a round, never a traceback).

The parser is a pure function of (text, API URL): these tests call it in-process; the command
lines that take a REF (`--unfollow REF`) are run as subprocesses in tests/test_follow.py."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import SCRIPTS

sys.path.insert(0, str(SCRIPTS))

from ghcomments.base.errors import UsageError  # noqa: E402
from ghcomments.store.refs import RoundRef, api_host_of, parse_ref, sort_key, web_host_of  # noqa: E402
from ghcomments.text.normalize import FIELD_RE  # noqa: E402

GITHUB = "https://api.github.com"
GHES = "https://ghe.example.com/api/v3"
FAKE = "http://127.0.0.1:8123"
KEY_RE = re.compile(r"[a-z0-9-]{1,39}/[a-z0-9._-]{1,100}/(issues|pull)/[1-9][0-9]*")


@pytest.mark.parametrize("api,text,key,start,form", [
    (GITHUB, "https://github.com/Octo/Hello/issues/5", "octo/hello/issues/5", None, "web"),
    (GITHUB, "https://github.com/octo/hello/issues/5#issuecomment-4309098042",
     "octo/hello/issues/5", 4309098042, "web"),
    (GITHUB, "https://github.com/octo/hello/pull/7", "octo/hello/pull/7", None, "web"),
    (GITHUB, "https://github.com/octo/hello/pulls/7", "octo/hello/pull/7", None, "web"),
    (GITHUB, "https://github.com/octo/hello/pull/7/files", "octo/hello/pull/7", None, "web"),
    (GITHUB, "https://github.com/octo/hello/pull/7/commits/", "octo/hello/pull/7", None, "web"),
    (GITHUB, "https://github.com/octo/hello/issues/5?q=is%3Aopen", "octo/hello/issues/5", None,
     "web"),
    (GITHUB, "HTTPS://GitHub.com:443/octo/hello/issues/5", "octo/hello/issues/5", None, "web"),
    (GITHUB, "https://api.github.com/repos/octo/hello/issues/5", "octo/hello/issues/5", None,
     "api"),
    (GITHUB, "https://api.github.com/repos/octo/hello/pulls/7", "octo/hello/pull/7", None,
     "api"),
    (GHES, "https://ghe.example.com/api/v3/repos/o/r/pulls/3", "o/r/pull/3", None, "api"),
    (GHES, "https://ghe.example.com/o/r/issues/3#issuecomment-9", "o/r/issues/3", 9, "web"),
    (FAKE, "http://127.0.0.1:8123/repos/o/r/issues/3", "o/r/issues/3", None, "api"),
    (FAKE, "http://127.0.0.1:8123/o/r/pull/3", "o/r/pull/3", None, "web"),
    # an owner named "repos" is a web URL, not an API one: the shapes differ
    (FAKE, "http://127.0.0.1:8123/repos/r/pull/3", "repos/r/pull/3", None, "web"),
    (GITHUB, "Octo/Hello.js/issues/12", "octo/hello.js/issues/12", None, "key"),
    (GITHUB, "octo/hello/pull/12", "octo/hello/pull/12", None, "key"),
    (GITHUB, "octo/hello#012", "octo/hello/issues/12", None, "short"),
])
def test_every_ref_form_names_its_round(api, text, key, start, form):
    ref = parse_ref(text, api)
    assert (ref.key, ref.start_comment_id, ref.form) == (key, start, form)
    assert ref.warnings == ()
    assert parse_ref(ref.key, api).key == key  # the key is itself a REF


def test_owner_and_name_keep_their_spelling_and_the_key_lowercases_them():
    ref = parse_ref("https://github.com/Octo-Cat/My.Repo/pull/3", GITHUB)
    assert (ref.owner, ref.repo, ref.repository) == ("Octo-Cat", "My.Repo", "Octo-Cat/My.Repo")
    assert ref.key == "octo-cat/my.repo/pull/3" and ref.is_pull
    assert ref.key == parse_ref("octo-cat/my.repo/pull/3", GITHUB).key  # one round


@pytest.mark.parametrize("text,said", [
    ("https://github.com/o/r/pull/7#discussion_r55", "a pull-request round starts"),
    ("https://github.com/o/r/pull/7#issuecomment-55", "a pull-request round starts"),
    ("https://github.com/o/r/issues/7#event-12", "only #issuecomment-ID"),
    ("https://api.github.com/repos/o/r/issues/7#issuecomment-5", "of an API URL is ignored"),
])
def test_a_fragment_that_is_no_starting_cursor_is_ignored_with_a_warning(text, said):
    ref = parse_ref(text, GITHUB)
    assert ref.start_comment_id is None
    assert len(ref.warnings) == 1 and said in ref.warnings[0]


@pytest.mark.parametrize("text,said", [
    ("", "empty"),
    ("o/r", "not a form"),
    ("o/r#", "not a form"),
    ("o/r#0", "invalid number"),
    ("o/r#2147483648", "invalid number"),
    ("o/r#٣", "invalid number"),
    ("o/r/issue/5", "not a form"),
    ("o/r/pulls/5", "not a form"),
    ("-o/r#5", "invalid repository owner"),
    ("o--x/r#5", "invalid repository owner"),
    ("o/..#5", "invalid repository name"),
    ("o/r#5\n", "whitespace or control"),
    (" o/r#5", "whitespace or control"),
    ("o/r\u202e#5", "whitespace or control"),
    ("ftp://github.com/o/r/issues/5", "ftp://"),
    ("https://github.com/o/r/issues/5/files", "unexpected /files"),
    ("https://github.com/o/r/issues", "is not /OWNER/REPO/issues/N"),
    ("https://github.com/o/r/wiki/5", "is not /OWNER/REPO/issues/N"),
    ("https://github.com//o/r/issues/5", "is not /OWNER/REPO/issues/N"),
    ("https://github.com/o/r/issues/5#issuecomment-x1", "#issuecomment-ID"),
    ("https://github.com/o/r/issues/5#issuecomment-", "#issuecomment-ID"),
    ("https://github.com:99999/o/r/issues/5", "not a plain http(s) URL"),
    ("https://github.com\\@evil.example/o/r/issues/5", "user name or password"),
    ("https://api.github.com/o/r/issues/5", "an API URL whose path"),
    ("https://api.github.com/repos/o/r/pull/5", "an API URL whose path"),
    ("http://github.com/o/r/issues/5", "plain http://"),
    ("x" * 3000, "longer than"),
])
def test_a_malformed_ref_is_a_usage_error_naming_it(text, said):
    with pytest.raises(UsageError) as info:
        parse_ref(text, GITHUB)
    assert info.value.exit_code == 2
    assert said in info.value.message
    assert not FIELD_RE.search(info.value.message)  # nothing in it can start a line


def test_a_ref_with_a_password_is_refused_without_printing_it():
    with pytest.raises(UsageError) as info:
        parse_ref("https://me:hunter2@github.com/o/r/issues/5", GITHUB)
    assert "hunter2" not in info.value.message and "userinfo" in info.value.message


@pytest.mark.parametrize("api,text", [
    (GITHUB, "https://gitlab.com/o/r/issues/5"),
    (GITHUB, "https://github.example.com/o/r/issues/5"),
    (GITHUB, "https://ghe.example.com/api/v3/repos/o/r/issues/5"),
    (GHES, "https://github.com/o/r/issues/5"),
    (GHES, "https://api.github.com/repos/o/r/issues/5"),
    (FAKE, "https://github.com/o/r/issues/5"),
    (FAKE, "http://127.0.0.1:8124/o/r/issues/5"),
])
def test_a_url_on_another_host_is_a_usage_error(api, text):
    with pytest.raises(UsageError) as info:
        parse_ref(text, api)
    assert "not on this command's host" in info.value.message


@pytest.mark.parametrize("api,web,host", [
    ("https://api.github.com", "github.com", "github.com"),
    ("https://api.octo.ghe.com", "octo.ghe.com", "api.octo.ghe.com"),
    ("https://ghe.example.com/api/v3", "ghe.example.com", "ghe.example.com"),
    ("https://ghe.example.com:8443/api/v3", "ghe.example.com:8443", "ghe.example.com:8443"),
    ("http://127.0.0.1:8123", "127.0.0.1:8123", "127.0.0.1:8123"),
    ("http://[::1]:8123", "[::1]:8123", "[::1]:8123"),
    ("http://api.github.localhost", "github.localhost", "api.github.localhost"),
])
def test_web_host_and_api_host_of_an_api(api, web, host):
    assert web_host_of(api) == web
    assert api_host_of(api) == host


def test_rounds_sort_by_owner_repository_kind_then_number_as_an_integer():
    texts = ["b/a#1", "a/b/pull/2", "a/b#10", "a/b#9", "A/a#3", "a/b/pull/10"]
    refs = sorted((parse_ref(t, GITHUB) for t in texts), key=sort_key)
    assert [r.key for r in refs] == ["a/a/issues/3", "a/b/issues/9", "a/b/issues/10",
                                     "a/b/pull/2", "a/b/pull/10", "b/a/issues/1"]


# ------------------------------------------------------------------------------ the fuzz

PIECES = st.sampled_from([
    "https://", "http://", "HTTPS://", "ftp://", "github.com", "api.github.com", "gitlab.com",
    "127.0.0.1:8123", "[::1]", ":443", ":0", ":99999", "/", "//", "repos", "issues", "pull",
    "pulls", "files", "commits", "o", "octo", "Octo-Cat", "r", "hello.js", "..", "-x", "5",
    "007", "0", "2147483648", "#", "#issuecomment-", "#issuecomment-42", "?", "?a=b", "@",
    "u:p@", "\\", "%2F", "\n", " ", "\u202e", "\U000e0041", "٣", "\x00", "\x1b[2J", "é",
])


GOOD_NAMES, BAD_NAMES = ["o", "Octo-Cat", "hello.js", "repos", "issues", "r"], [
    "-x", "a--b", "..", "x" * 40, "é", ""]
GOOD_NUMBERS, BAD_NUMBERS = ["5", "007", "2147483647"], ["0", "2147483648", "٣", ""]


def mostly(good, bad):
    """Mostly good values, so that mutations land on REFs that would otherwise pass."""
    return st.integers(0, 5).flatmap(lambda i: st.sampled_from(bad if i == 0 else good))


NAMES, NUMBERS = mostly(GOOD_NAMES, BAD_NAMES), mostly(GOOD_NUMBERS, BAD_NUMBERS)
HOSTS = {GITHUB: ("https://github.com", "https://api.github.com"),
         GHES: ("https://ghe.example.com", "https://ghe.example.com/api/v3"),
         FAKE: ("http://127.0.0.1:8123", "http://127.0.0.1:8123")}


@st.composite
def refs(draw, api):
    """Well-formed REFs of every form, the same with one hostile piece put in or one slice
    cut out, and arbitrary text."""
    how = draw(st.integers(0, 4))
    if how == 0:
        return draw(st.text(max_size=80)) if draw(st.booleans()) else "".join(
            draw(st.lists(PIECES, max_size=14)))
    owner, repo, number = draw(NAMES), draw(NAMES), draw(NUMBERS)
    web, rest = HOSTS[api]
    form = draw(st.sampled_from(["web", "web-pull", "api", "key", "short"]))
    text = {"web": f"{web}/{owner}/{repo}/issues/{number}",
            "web-pull": f"{web}/{owner}/{repo}/pull/{number}/files",
            "api": f"{rest}/repos/{owner}/{repo}/pulls/{number}",
            "key": f"{owner}/{repo}/pull/{number}",
            "short": f"{owner}/{repo}#{number}"}[form]
    if form.startswith("web"):
        text += draw(st.sampled_from(["", "#issuecomment-42", "#x", "?a=b", "/"]))
    if how == 3:
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(PIECES) + text[at:]
    elif how == 4:
        at = draw(st.integers(0, len(text)))
        text = text[:at] + text[at + draw(st.integers(1, 6)):]
    return text


@settings(max_examples=400, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), api=st.sampled_from([GITHUB, GHES, FAKE]))
def test_fuzz_a_ref_is_a_round_or_a_usage_error(data, api):
    text = data.draw(refs(api))
    try:
        ref = parse_ref(text, api)
    except UsageError as exc:
        assert exc.exit_code == 2
        assert "REF" in exc.message
        assert not FIELD_RE.search(exc.message)
        assert "://u:p@" not in exc.message  # a URL's userinfo is never repeated
        return
    assert isinstance(ref, RoundRef)
    assert KEY_RE.fullmatch(ref.key), ref
    assert 1 <= ref.number <= 2**31 - 1
    assert ref.start_comment_id is None or (ref.kind == "issues" and ref.form == "web")
    assert parse_ref(ref.key, api).key == ref.key
    for warning in ref.warnings:
        assert not FIELD_RE.search(warning)


def test_a_short_ref_of_a_pull_request_is_warned_from_its_comments_url():
    from ghcomments.store.refs import pull_request_warning

    short = parse_ref("Octo/Hello#7", GITHUB)
    url = "https://github.com/octo/hello/pull/7#issuecomment-42"
    assert "octo/hello/pull/7" in pull_request_warning(short, url)
    issue_url = "https://github.com/octo/hello/issues/7#issuecomment-4"
    assert pull_request_warning(short, issue_url) is None
    assert pull_request_warning(short, None) is None  # no comment yet: nothing to go by
    assert pull_request_warning(parse_ref("octo/hello/issues/7", GITHUB), url) is None
    assert pull_request_warning(parse_ref("octo/hello#8", GITHUB), url) is None
