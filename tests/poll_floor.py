"""The floor of a no-change poll (CONTRACT section 20): the least work the standard library can
do for it. `make bench` runs it paired with check_issue_updates.py; the poll must take at most
1.3x as long. Usage: python3 tests/poll_floor.py STATE_FILE (GH_TOKEN in the environment).
STATE_FILE holds {"url": the list URL, "etag": its ETag}; the updates file goes beside it."""
import http.client
import json
import os
import sys
import time
from urllib.parse import urlsplit

state_file = sys.argv[1]
with open(state_file, encoding="utf-8") as f:
    state = json.load(f)
url = urlsplit(state["url"])
conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
conn.request("GET", f"{url.path}?{url.query}", headers={
    "If-None-Match": state["etag"], "Authorization": f"Bearer {os.environ['GH_TOKEN']}",
    "Accept": "application/vnd.github+json", "User-Agent": "poll-floor"})
resp = conn.getresponse()
resp.read()
doc = {"has_updates": resp.status != 304, "status": resp.status, "checked_at": time.time()}
out = os.path.join(os.path.dirname(os.path.abspath(state_file)), "floor-updates.json")
with open(out + ".tmp", "w", encoding="utf-8") as f:
    json.dump(doc, f)
    f.flush()
    os.fsync(f.fileno())
os.replace(out + ".tmp", out)
print(json.dumps(doc))
