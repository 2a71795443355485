"""One TLS rule for both HTTP paths (CONTRACT section 16): the CA bundle named by SSL_CERT_FILE,
else REQUESTS_CA_BUNDLE, else the default.

A TLS front of the test's own on 127.0.0.1, with a certificate from a CA made here by the
`openssl` CLI, forwards every request to the fake GitHub. A first look goes through requests, a
poll answered 304 through the http.client fast path (it never imports requests): both must
trust the named bundle, and without it both must refuse the unknown CA.
"""

from __future__ import annotations

import http.client
import json
import shutil
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Dict

import pytest

from tests.support import OWNER, REPO, REPOSITORY, SCRIPT_PYTHON, Run, script_env

ISSUE = 5
CA_VARIABLES = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_DIR")
HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection"}


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory) -> Dict[str, Path]:
    """A CA and a server certificate for IP 127.0.0.1 signed by it (EC P-256, two days)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl CLI is not installed (apt-get install openssl)")
    d = tmp_path_factory.mktemp("tls")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for name in ("ca", "other-ca"):
        openssl("req", "-x509", *ec, "-keyout", f"{name}.key", "-out", f"{name}.pem",
                "-days", "2", "-subj", f"/CN=gh-issue-comment-monitor test {name}",
                "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)
    openssl("req", "-new", *ec, "-keyout", "server.key", "-out", "server.csr",
            "-subj", "/CN=127.0.0.1", cwd=d)
    (d / "server.ext").write_text("basicConstraints=critical,CA:FALSE\n"
                                  "keyUsage=critical,digitalSignature\n"
                                  "extendedKeyUsage=serverAuth\n"
                                  "subjectAltName=IP:127.0.0.1\n"
                                  "subjectKeyIdentifier=hash\n"
                                  "authorityKeyIdentifier=keyid\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "server.ext",
            cwd=d)
    return {"ca": d / "ca.pem", "other_ca": d / "other-ca.pem", "cert": d / "server.pem",
            "key": d / "server.key"}


class TLSFront:
    """HTTPS on 127.0.0.1 that forwards each request to the fake and its answer back."""

    def __init__(self, fake, certificates: Dict[str, Path]) -> None:
        front = self
        self.fake = fake

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                upstream = http.client.HTTPConnection("127.0.0.1", front.fake.port, timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
                upstream.request(self.command, self.path, body=body, headers=headers)
                resp = upstream.getresponse()
                content = resp.read()
                self.send_response(resp.status)
                for name, value in resp.getheaders():
                    if name.lower() in HOP:
                        continue
                    if name.lower() == "link":
                        value = value.replace(front.fake.url, front.url)
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)
                upstream.close()

            do_GET = do_POST = do_PATCH = forward

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificates["cert"], certificates["key"])
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def front(fake, certificates):
    fake.add_repo(OWNER, "hello")
    fake.add_issue(OWNER, "hello", ISSUE)
    fake.add_comments(OWNER, "hello", ISSUE, 5)
    server = TLSFront(fake, certificates)
    yield server
    server.close()


def env_for(fake, front: TLSFront, **bundle: str) -> Dict[str, str]:
    env = {k: v for k, v in script_env(fake).items() if k not in CA_VARIABLES}
    env.update(GITHUB_API_URL=front.url, **bundle)
    return env


def check(env: Dict[str, str], root: Path, *python_flags: str) -> Run:
    """check_issue_updates.py through the front (no sleeping between retries)."""
    proc = subprocess.run([SCRIPT_PYTHON, *python_flags, str(REPO / "scripts/check_issue_updates.py"),
                           "--repo", REPOSITORY, "--issue", str(ISSUE), "--root", str(root),
                           "--max-wait", "0"],
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    return Run(proc.returncode, proc.stdout, proc.stderr)


def confirm(env: Dict[str, str], root: Path, snapshot: str) -> Run:
    proc = subprocess.run([SCRIPT_PYTHON, str(REPO / "scripts/get_latest_comments.py"),
                           "--repo", REPOSITORY, "--issue", str(ISSUE), "--root", str(root),
                           "--confirm-updates", "--snapshot-id", snapshot],
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    return Run(proc.returncode, proc.stdout, proc.stderr)


def imported_modules(stderr: str) -> set:
    return {line.split("|")[-1].strip() for line in stderr.splitlines()
            if line.startswith("import time:")}


@pytest.mark.parametrize("variable", ["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"])
def test_the_named_ca_bundle_is_trusted_by_requests_and_by_the_fast_path(
        fake, front, certificates, tmp_path, variable):
    env = env_for(fake, front, **{variable: str(certificates["ca"])})
    r = check(env, tmp_path)  # a first look: requests
    assert r.code == 0 and r.json["new_comment_count"] == 5, r
    assert confirm(env, tmp_path, r.json["snapshot_id"]).code == 0
    fake.clear_log()
    r = check(env, tmp_path, "-X", "importtime")  # a poll answered 304: http.client only
    assert r.code == 0 and json.loads(r.stdout)["has_updates"] is False, r
    assert [q.status for q in fake.requests] == [304]
    modules = imported_modules(r.stderr)
    assert "http.client" in modules and "ssl" in modules
    assert not {m for m in modules if m == "requests" or m.startswith("urllib3")}


def test_without_the_bundle_both_paths_refuse_the_unknown_ca(fake, front, certificates,
                                                               tmp_path):
    trusted = env_for(fake, front, SSL_CERT_FILE=str(certificates["ca"]))
    untrusted = env_for(fake, front)
    r = check(untrusted, tmp_path)  # requests, with its default (certifi's) CAs
    assert r.code == 6 and r.json["error"]["code"] == "network", r
    assert "CERTIFICATE_VERIFY_FAILED" in r.json["error"]["message"]
    assert fake.requests == []
    r = check(trusted, tmp_path)
    assert confirm(trusted, tmp_path, r.json["snapshot_id"]).code == 0
    r = check(untrusted, tmp_path)  # the 304 probe: the system's CAs, then requests' refuse it
    assert r.code == 6 and "CERTIFICATE_VERIFY_FAILED" in r.json["error"]["message"], r
    fake.clear_log()
    r = check(env_for(fake, front, REQUESTS_CA_BUNDLE=str(certificates["other_ca"])), tmp_path)
    assert r.code == 6 and "CA bundle" in r.json["error"]["message"], r  # the fast path says
    assert fake.requests == []


def test_a_bundle_that_is_not_a_file_is_a_usage_error(fake, front, tmp_path):
    r = check(env_for(fake, front, SSL_CERT_FILE=str(tmp_path / "missing.pem")), tmp_path)
    assert r.code == 2 and r.json["error"]["code"] == "usage", r
    assert "SSL_CERT_FILE" in r.json["error"]["message"] and fake.requests == []
