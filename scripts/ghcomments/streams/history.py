"""The edit history of edited comments: one GraphQL query per 100 (CONTRACT section 19, turn 5).

A flagged check that found candidate edits (items its `since` read met that the edit test
passes) asks GitHub's GraphQL API, by the REST `node_id`s, for each one's `lastEditedAt` (a body
edit, unlike `updated_at`), its `editor` and its `userContentEdits(first: 20)`: the revisions,
newest first, each `diff` holding that revision's whole text (observed, not documented: see
docs/reference.md). From them `previous_body`: the revision the agent handled.

- The history is used only when its newest revision hashes to the current REST body.
- `previous_body_source`: "seen" (the revision whose SHA-256 is the hash the agent was given),
  "original" (no hash, created at or after the time its list was baselined: it was shown
  unedited), "as_of" (the revision in force at that time), else `previous_body` null and the
  source says why: "history_unavailable", "revision_deleted", "graphql_unavailable".
- A candidate without a hash whose `lastEditedAt` is null or before that time is no body edit
  (a re-anchored line, a hidden comment): `no_change`.

One command asks for the candidates of all its lists together (turn 6: a pull request's
conversation and inline comments, every round of the inbox; since.ask_history). No query when
there is no candidate (an idle poll never sends one). A GraphQL failure is never
the round's error: every candidate is then reported with nulls and "graphql_unavailable".
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

from ..store import edits

HISTORY_REVISIONS = 20
PER_QUERY = 100

HISTORY_QUERY = """
query EditHistory($ids: [ID!]!) {
  nodes(ids: $ids) {
    ... on IssueComment { id lastEditedAt editor { login } userContentEdits(first: 20) {
      totalCount nodes { editedAt deletedAt diff } } }
    ... on PullRequestReviewComment { id lastEditedAt editor { login } userContentEdits(first: 20) {
      totalCount nodes { editedAt deletedAt diff } } }
  }
}
"""


def fetch(client: Any, candidates: Sequence[Mapping[str, Any]], warnings: List[str]
          ) -> Optional[Dict[str, Dict[str, Any]]]:
    """node_id -> its GraphQL node, for the candidates (one query per 100); None when GraphQL
    could not be read (the caller reports the edits without their history)."""
    import os

    from ..base.errors import BundleError
    from .thread_reader import graphql_url

    ids = [c.get("node_id") for c in candidates if isinstance(c.get("node_id"), str)]
    out: Dict[str, Dict[str, Any]] = {}
    if not ids:
        return out
    problem = None
    if not getattr(client.transport, "authenticated", True):
        problem = "GitHub's GraphQL API needs a token"
    else:
        try:
            url = graphql_url(client, os.environ)
            for start in range(0, len(ids), PER_QUERY):
                data, _errors = client.graphql(url, HISTORY_QUERY,
                                               {"ids": ids[start:start + PER_QUERY]},
                                               what="the edit history of edited comments")
                nodes = data.get("nodes") if isinstance(data, dict) else None
                if not isinstance(nodes, list):
                    raise BundleError("malformed GraphQL response: no nodes")
                for node in nodes:
                    if isinstance(node, dict) and isinstance(node.get("id"), str):
                        out[node["id"]] = node
        except BundleError as err:
            problem = f"{getattr(err, 'code', 'error')}: {err.message}"
    if problem is not None:
        warnings.append("the edit history of edited comments could not be read over GraphQL "
                        f"({problem}): they are reported with previous_body, edited_by and "
                        "last_edited_at null")
        return None
    return out


def _revisions(node: Mapping[str, Any]) -> Optional[List[Mapping[str, Any]]]:
    conn = node.get("userContentEdits")
    nodes = conn.get("nodes") if isinstance(conn, dict) else None
    if not isinstance(nodes, list):
        return None
    return [n for n in nodes if isinstance(n, dict)]


def _complete(node: Mapping[str, Any], revs: Sequence[Mapping[str, Any]]) -> bool:
    conn = node.get("userContentEdits") or {}
    total = conn.get("totalCount") if isinstance(conn, dict) else None
    return isinstance(total, int) and total <= len(revs)


def describe(raw: Mapping[str, Any], node: Optional[Mapping[str, Any]],
             seen_hash: Optional[str], handled_at: Optional[str],
             graphql_ok: bool, no_change_before: Optional[str] = None) -> Dict[str, Any]:
    """What section 19 adds to one edited item: edited_by, last_edited_at, previous_body and
    its source; `no_change` true when GitHub says the body was not edited since it was
    handled (the caller leaves such an item out): its `lastEditedAt` is null or before
    `no_change_before` (default `handled_at`; after W moved, the caller passes it minus the
    hour of overlap, so an edit whose write became visible late is not taken for a bump)."""
    out: Dict[str, Any] = {"edited_by": None, "last_edited_at": None, "previous_body": None,
                           "previous_body_source": "graphql_unavailable", "no_change": False}
    if not graphql_ok:
        return out
    out["previous_body_source"] = "history_unavailable"
    if node is None:
        return out
    editor = node.get("editor")
    out["edited_by"] = editor.get("login") if isinstance(editor, dict) else None
    last = node.get("lastEditedAt")
    if last is not None and edits.parse_time(last) is None:
        return out  # not a time: the history is not used (never taken for "no edit")
    out["last_edited_at"] = last
    handled = edits.parse_time(handled_at)
    floor = edits.parse_time(no_change_before) or handled
    if seen_hash is None and floor is not None and (
            out["last_edited_at"] is None or edits.parse_time(last) < floor):
        out["no_change"] = True
        return out
    revs = _revisions(node)
    if not revs or revs[0].get("diff") is None or edits.body_sha256(
            revs[0]["diff"]) != edits.body_sha256(raw.get("body")):
        return out
    if seen_hash is not None:
        for rev in revs:
            if rev.get("diff") is not None and edits.body_sha256(rev["diff"]) == seen_hash:
                out["previous_body"], out["previous_body_source"] = rev["diff"], "seen"
                return out
        if any(rev.get("deletedAt") for rev in revs):
            out["previous_body_source"] = "revision_deleted"
        return out
    created = edits.parse_time(raw.get("created_at"))
    if handled is None:
        return out
    if created is not None and created >= handled:
        if not _complete(node, revs):
            return out
        pick: Optional[Mapping[str, Any]] = revs[-1]
        source = "original"
    else:
        pick, source = None, "as_of"
        for rev in revs:  # newest first: the first at or before `handled`
            when = edits.parse_time(rev.get("editedAt"))
            if when is not None and when <= handled:
                pick = rev
                break
        if pick is None or pick is revs[0]:  # the current text: not the one handled
            return out
        if edits.parse_time(pick.get("editedAt")) == handled:
            # made in the read's own second: whether the agent was given it or the revision
            # before cannot be told (whole seconds), so no text is named (section 22)
            return out
    if pick.get("diff") is None:
        out["previous_body_source"] = "revision_deleted"
        return out
    out["previous_body"], out["previous_body_source"] = pick["diff"], source
    return out
