#!/usr/bin/env bash
#
# CLI fallback for pull-request review feedback: bash + gh + jq + git, REST only, read-only.
# Prints the normalised comments of one pull request (CONTRACT section 7) as JSON or a summary.

set -euo pipefail
# No core file from this script or its children: gh holds the token, and Go's runtime dumps
# core on SIGQUIT under GOTRACEBACK=crash (issue 31). The soft limit only; never an error.
ulimit -S -c 0 2>/dev/null || true
# GOMEMLIMIT: gh's garbage is collected early, so what gh holds follows what it has live (a
# 40 MiB error message a server sent: 399 MiB without it, 277 with; docs/reference.md).
export GOTRACEBACK=none GOMEMLIMIT=64MiB

readonly PROG="get-pr-comments.sh"
readonly RESOLUTION_NOTE="review thread resolution state is unavailable through the REST fallback: reviewThreads is empty and resolved comments are included"

tmp=''

usage() {
  cat <<'EOF'
Usage: get-pr-comments.sh [--owner OWNER --repo NAME | --repo OWNER/NAME] --pr NUMBER
                          [--format summary|json] [--file PATH] [--author LOGIN]
                          [--include-system]

Read-only CLI fallback for pull-request review feedback. Needs only bash, gh, jq and git; reads
GitHub's REST API through `gh api`, one call a page (GET only, next links followed only on the
API's origin, no token variable in gh's environment) and never changes the pull request.

Options:
  --owner OWNER        repository owner (with --repo NAME)
  --repo NAME          repository name, or OWNER/NAME. Without --owner/--repo both come from
                       `git remote get-url origin` in the current directory (https or ssh form)
  --pr NUMBER          pull request number (required)
  --format FORMAT      summary (default) or json
  --file PATH          keep only inline review comments on PATH (timeline items have no file
                       and are left as they are; `limitations` says so)
  --author LOGIN       keep only comments by LOGIN (case-insensitive; a bot matches with or
                       without its [bot] suffix)
  --include-system     keep system events: issue comments by bots and COMMENTED reviews with
                       an empty body (the wrappers of inline comments)
  -h, --help           show this help

gh chooses the token itself. The host is GH_HOST when set, else the host of the origin remote
when the repository comes from it, else github.com; login is checked first with
`gh auth token --hostname HOST` (which prints nothing here and sends no request).

Output (json): repository, pullRequest, title, state (OPEN/CLOSED/MERGED), url, retrievedAt,
refreshed (always true), reviewThreads (always [] here: REST has no resolution state),
reviewComments (inline comments), timelineComments (reviews and issue comments), limitations.
gh rewrites control characters in bodies into caret notation (ESC becomes ^[), and gh 2.23 also
rewrites literal \u00XX text (\u00e9 becomes \é): bodies that may have been rewritten (caret
sequences, backslashes) are listed in `limitations`, and their body, bodyChars and
hiddenCharacters describe the text as gh returned it.

Examples:
  get-pr-comments.sh --owner octo --repo hello --pr 7
  get-pr-comments.sh --repo octo/hello --pr 7 --format json
  get-pr-comments.sh --pr 7 --file src/app.py --author alice     # repository from origin
  GH_HOST=ghe.example.com get-pr-comments.sh --repo team/api --pr 12 --include-system

Exit codes (an error also prints {"error": {code, message, status, retry_after_seconds}} on
stdout and one line on stderr):
  0  success
  2  usage: bad or missing arguments, or a required tool (gh, jq; git when the repository
     must be read from the origin remote) is not installed
  3  auth: gh is not logged in to the host, 401, or a 403 that is not a rate limit
  4  not_found: repository or pull request missing, or invisible to the gh login
  5  rate_limited: primary or secondary rate limit (retry_after_seconds when known)
  6  network/server: connection failure, 5xx (502/503/504 and connection failures are tried
     3 times), malformed response
EOF
}

readonly TOKEN_VARIABLES=(GH_TOKEN GITHUB_TOKEN GH_ENTERPRISE_TOKEN GITHUB_ENTERPRISE_TOKEN)
# The token of gh's own login for HOST (`gh auth token`, no request): scrubbed like the
# environment's. Never exported: handed to jq alone, in its environment (with_tokens).
GHCM_LOGIN_TOKEN=''
# Seconds any one gh call may take (a server that drips bytes must not hold the fallback).
readonly GH_CALL_TIMEOUT=120

# Run "$@" (jq) with the gh login's token in its environment, where scrub_all reads it.
with_tokens() {
  GHCM_LOGIN_TOKEN="${GHCM_LOGIN_TOKEN}" "$@"
}

# $1 with every token of the environment and of gh's login replaced by *** in every printable
# form (the scripts' scrubber, in bash and jq: CONTRACT section 17): raw here, and with jq
# (when present) the percent-encoded (either case) and \uXXXX-escaped spellings. JSON output
# is scrubbed value by value in jq (scrub_all).
scrub() {
  local s="$1" name token scrubbed
  for name in "${TOKEN_VARIABLES[@]}" GHCM_LOGIN_TOKEN; do
    token="${!name:-}"
    if [ -n "${token}" ]; then
      s="${s//"${token}"/***}"
    fi
  done
  if [[ "${s}" == *[%\\]* ]] && command -v jq >/dev/null 2>&1 \
    && scrubbed="$(printf '%s' "${s}" | with_tokens jq -Rrs "${JQ_LIB} scrub_string" \
      2>/dev/null)"; then
    s="${scrubbed}"
  fi
  printf '%s' "${s}"
}

# $1 with any user:password@ of a URL shown as ***@: no remote URL with credentials is printed.
# Everything up to the last '@' goes (git ends the userinfo there, and a password may hold '@',
# '#', '?' or '/', so where the authority ends is unknowable); scp-like remotes alike.
without_userinfo() {
  local url="$1" head=""
  if [[ "${url}" =~ ^([A-Za-z][A-Za-z0-9+.-]*://)(.*)$ ]]; then
    head="${BASH_REMATCH[1]}"
    url="${BASH_REMATCH[2]}"
  fi
  if [[ "${url}" == *@* ]]; then
    url="***@${url##*@}"
  fi
  printf '%s' "${head}${url}"
}

# One line on stderr: scrubbed, and server text in it (gh's or GitHub's messages) unable to
# start a line or rewrite the terminal: controls, bidi and tag characters as <U+XXXX> (jq's
# esc, as the summary does); without jq, controls become spaces.
err() {
  local line escaped
  line="$(scrub "$*")"
  if escaped="$(printf '%s' "${line}" | with_tokens jq -Rrs "${JQ_LIB} esc" 2>/dev/null)"; then
    line="${escaped}"
  fi
  printf '%s: %s\n' "${PROG}" "${line//[[:cntrl:]]/ }" >&2
}

# A JSON string literal of $1 (pure bash: error reports must work without jq).
json_string() {
  local s="$1"
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//[[:cntrl:]]/ }
  printf '"%s"' "${s}"
}

# Report an error as the contract says and exit.
# Arguments: exit code, code, message, [HTTP status], [retry-after seconds]
die() {
  local exit_code="$1" code="$2" message status="${4:-}" retry="${5:-}"
  local status_json="null" retry_json="null"
  message="$(scrub "$3")"
  [[ "${status}" =~ ^[0-9]+$ ]] && status_json="${status}"
  [[ "${retry}" =~ ^[0-9]+$ ]] && retry_json="${retry}"
  printf '{"error": {"code": %s, "message": %s, "status": %s, "retry_after_seconds": %s}}\n' \
    "$(json_string "${code}")" "$(json_string "${message}")" "${status_json}" "${retry_json}"
  err "${message//[[:cntrl:]]/ }"
  exit "${exit_code}"
}

usage_error() {
  die 2 usage "$1 (see --help)"
}

# --------------------------------------------------------------------------- arguments

OWNER=''
REPO=''
PR=''
FORMAT='summary'
FILE_FILTER=''
FILE_SET=0
AUTHOR_FILTER=''
INCLUDE_SYSTEM=0
HOST=''
REMOTE_HOST=''

# Value of an option given as `--flag VALUE`; $1 flag, $2 argument count left, $3 next word.
need_value() {
  if [ "$2" -lt 2 ]; then
    usage_error "option $1 needs a value"
  fi
  case "$3" in
    --*) usage_error "option $1 needs a value, got option $3" ;;
  esac
}

parse_args() {
  local flag value
  while [ $# -gt 0 ]; do
    case "$1" in
      -h | --help)
        usage
        exit 0
        ;;
      --include-system)
        INCLUDE_SYSTEM=1
        shift
        ;;
      --owner=* | --repo=* | --pr=* | --format=* | --file=* | --author=*)
        flag="${1%%=*}"
        value="${1#*=}"
        shift
        set -- "${flag}" "${value}" "$@"
        ;;
      --owner | --repo | --pr | --format | --file | --author)
        need_value "$1" "$#" "${2:-}"
        case "$1" in
          --owner) OWNER="$2" ;;
          --repo) REPO="$2" ;;
          --pr) PR="$2" ;;
          --format) FORMAT="$2" ;;
          --file)
            FILE_FILTER="$2"
            FILE_SET=1
            ;;
          --author) AUTHOR_FILTER="$2" ;;
        esac
        shift 2
        ;;
      -*)
        usage_error "unrecognized flag: $1"
        ;;
      *)
        usage_error "unexpected argument: $1"
        ;;
    esac
  done

  case "${FORMAT}" in
    summary | json) ;;
    *) usage_error "--format must be summary or json, not '${FORMAT}'" ;;
  esac
  if [ -z "${PR}" ]; then
    usage_error "missing --pr NUMBER (this fallback has no --active)"
  fi
  if ! [[ "${PR}" =~ ^[1-9][0-9]{0,9}$ ]]; then
    usage_error "--pr must be a positive integer, not '${PR}'"
  fi
  if [ "${FILE_SET}" -eq 1 ] && [ -z "${FILE_FILTER}" ]; then
    usage_error "--file needs a non-empty path"
  fi
  if [[ "${REPO}" == */* ]]; then
    if [ -n "${OWNER}" ] && [ "${OWNER}" != "${REPO%%/*}" ]; then
      usage_error "--owner ${OWNER} conflicts with --repo ${REPO}"
    fi
    OWNER="${REPO%%/*}"
    REPO="${REPO#*/}"
  elif [ -n "${REPO}" ] && [ -z "${OWNER}" ]; then
    usage_error "--repo ${REPO} needs --owner OWNER (or pass --repo OWNER/NAME)"
  elif [ -z "${REPO}" ] && [ -n "${OWNER}" ]; then
    usage_error "--owner ${OWNER} needs --repo NAME"
  fi
}

# GitHub's rules for owner and repository names (CONTRACT section 3).
check_names() {
  if ! [[ "${OWNER}" =~ ^[A-Za-z0-9]([A-Za-z0-9]|-[A-Za-z0-9]){0,38}$ ]]; then
    usage_error "invalid owner '${OWNER}'"
  fi
  if ! [[ "${REPO}" =~ ^[A-Za-z0-9._-]{1,100}$ ]] || [ "${REPO}" = "." ] \
    || [ "${REPO}" = ".." ]; then
    usage_error "invalid repository name '${REPO}'"
  fi
}

require_tool() {
  if ! command -v "$1" >/dev/null 2>&1; then
    usage_error "$1 is not installed; this fallback needs bash, gh, jq and git ($2)"
  fi
}

# Owner, name and host from `git remote get-url origin` (https, ssh and scp-like forms).
repo_from_remote() {
  local url
  require_tool git "or pass --repo OWNER/NAME"
  if ! url="$(git remote get-url origin 2>/dev/null)" || [ -z "${url}" ]; then
    usage_error "missing --owner/--repo: no git remote 'origin' in ${PWD} to take them from"
  fi
  url="${url%/}"
  # The userinfo ends at the last '@' (git's reading): the host is what follows it.
  if [[ "${url}" =~ ^(https?|ssh|git)://([^/]*@)?([^/:@]+)(:[0-9]+)?/([^/]+)/([^/]+)$ ]]; then
    HOST="${BASH_REMATCH[3]}"
    OWNER="${BASH_REMATCH[5]}"
    REPO="${BASH_REMATCH[6]}"
  elif [[ "${url}" =~ ^([^/]*@)?([^/:@]+):([^/]+)/([^/]+)$ ]]; then
    HOST="${BASH_REMATCH[2]}"
    OWNER="${BASH_REMATCH[3]}"
    REPO="${BASH_REMATCH[4]}"
  else
    usage_error "missing --owner/--repo: cannot read OWNER/NAME from origin '$(without_userinfo "${url}")'"
  fi
  REPO="${REPO%/}"
  REPO="${REPO%.git}"
  # A host name only: nothing gh --hostname (or a URL parser) might read otherwise.
  if ! [[ "${HOST}" =~ ^[A-Za-z0-9]([A-Za-z0-9.-]{0,252}[A-Za-z0-9])?$ ]]; then
    usage_error "missing --owner/--repo: the origin remote '$(without_userinfo "${url}")' names no plain host name"
  fi
  if [ "${HOST}" = ssh.github.com ]; then  # SSH over port 443
    HOST=github.com
  fi
  REMOTE_HOST="${HOST}"
}

# A remote on a host that is neither github.com, GH_HOST nor one gh is logged in to (a GitLab
# origin) gets no request: gh would send GH_ENTERPRISE_TOKEN to https://HOST/api/v3. The login
# is asked with the token variables removed, so an environment token does not vouch for it.
check_remote_host() {
  local name
  local -a unset_tokens=()
  if [ -z "${REMOTE_HOST}" ] || [ "${REMOTE_HOST}" = github.com ] \
    || [ "${REMOTE_HOST}" = "${GH_HOST:-}" ]; then
    return 0
  fi
  for name in "${TOKEN_VARIABLES[@]}"; do
    unset_tokens+=(-u "${name}")
  done
  if env "${unset_tokens[@]}" gh auth token --hostname "${REMOTE_HOST}" >/dev/null 2>&1 \
    </dev/null; then
    return 0
  fi
  usage_error "the origin remote is on ${REMOTE_HOST}, which is not github.com, GH_HOST or a host gh is logged in to: set GH_HOST=${REMOTE_HOST} if it is a GitHub Enterprise Server, or pass --repo OWNER/NAME for github.com"
}

# A token variable no header can carry (two tokens pasted together) is refused, naming it.
check_tokens() {
  local name token
  for name in "${TOKEN_VARIABLES[@]}"; do
    token="${!name:-}"
    if [ -n "${token}" ] && ! [[ "${token}" =~ ^[!-~]+$ ]]; then
      die 3 auth "the token in ${name} holds whitespace, control or non-ASCII characters (two tokens pasted together?); set it to one token"
    fi
  done
}

# --------------------------------------------------------------------------- gh api

# gh as a plain, non-interactive pipe: no forced terminal, colour, pager or prompt, whatever the
# caller's environment says (colour or a forced TTY would put escapes in the JSON and headers).
run_gh() {
  (
    unset GH_FORCE_TTY GH_PAGER PAGER CLICOLOR_FORCE
    export NO_COLOR=1 GH_PROMPT_DISABLED=1 GH_NO_UPDATE_NOTIFIER=1 GH_SPINNER_DISABLED=1
    if command -v timeout >/dev/null 2>&1; then  # exit 124 when it ran out of time
      exec timeout -k 5 "${GH_CALL_TIMEOUT}" gh "$@"
    fi
    exec gh "$@"
  )
}

# Filled by gh_get when a request fails.
FAIL_EXIT=0
FAIL_CODE=''
FAIL_MESSAGE=''
FAIL_STATUS=''
FAIL_RETRY=''

# Split `gh api -i` output ($1): bodies of every page to $2 (one JSON document a line), the
# headers of the last response to $3, the last body alone to $4; prints the last HTTP status.
split_response() {
  local raw="$1" bodies="$2" headers="$3" last="$4"
  local -a starts=()
  local i n line from blank=0 upto status=''
  : >"${bodies}"
  : >"${headers}"
  : >"${last}"
  # grep, tail and sed find the parts: a bash read loop took minutes over a page of 4 Mi
  # newlines, and awk (mawk) 16 s over one line of 60 MiB; these stream at disk speed.
  mapfile -t starts < <(LC_ALL=C grep -a -n -o -E '^HTTP/[0-9][^ ]* [0-9]{3}' "${raw}")
  n=${#starts[@]}
  for ((i = 0; i < n; i++)); do
    line="${starts[i]%%:*}"
    if [ "${line}" -le "${blank}" ]; then
      continue  # inside the header block of the response before: a header line
    fi
    status="${starts[i]##* }"
    from=$((line + 1))
    blank="$(tail -n +"${from}" "${raw}" | LC_ALL=C grep -a -n -m 1 -E $'^\r?$' | cut -d: -f1)"
    if [ -z "${blank}" ]; then  # no end of the headers: all of it headers, no body
      LC_ALL=C tail -n +"${from}" "${raw}" | tr -d '\r' >"${headers}"
      : >"${last}"
      blank=$((1 << 62))
      break
    fi
    blank=$((line + blank))
    LC_ALL=C sed -n "${from},$((blank - 1))p" "${raw}" | tr -d '\r' >"${headers}"
    upto=''
    if [ $((i + 1)) -lt "${n}" ]; then
      upto=$((${starts[i + 1]%%:*} - 1))
    fi
    if [ -n "${upto}" ]; then
      LC_ALL=C sed -n "$((blank + 1)),${upto}p" "${raw}" >"${last}"
    else
      tail -n +"$((blank + 1))" "${raw}" >"${last}"
    fi
    if [ -s "${last}" ]; then
      printf '\n' >>"${last}"  # one body a line at least: the next page's starts on its own
    fi
    cat "${last}" >>"${bodies}"
  done
  printf '%s' "${status}"
}

# Whether gh has a token for HOST. `gh auth token` sends no request (the token itself goes to
# /dev/null); gh before 2.17 lacks it, and then `gh auth status` decides.
gh_logged_in() {
  local complaint
  if GHCM_LOGIN_TOKEN="$(run_gh auth token --hostname "${HOST}" 2>/dev/null </dev/null)"; then
    if [ -n "${GHCM_LOGIN_TOKEN}" ] && ! [[ "${GHCM_LOGIN_TOKEN}" =~ ^[!-~]+$ ]]; then
      die 3 auth "the token gh holds for ${HOST} holds whitespace, control or non-ASCII characters; run 'gh auth login --hostname ${HOST}' again"
    fi
    return 0
  fi
  GHCM_LOGIN_TOKEN=''
  complaint="$(run_gh auth token --hostname "${HOST}" 2>&1 >/dev/null </dev/null)" || true
  case "${complaint}" in
    *"unknown command"*)
      run_gh auth status --hostname "${HOST}" >/dev/null 2>&1 </dev/null
      ;;
    *) return 1 ;;
  esac
}

# Value of header $2 (any case) in headers file $1, or nothing.
header_value() {
  local file="$1" want="$2" line name value=''
  while IFS= read -r line; do
    name="${line%%:*}"
    if shopt -s nocasematch && [[ "${name}" == "${want}" ]]; then
      value="${line#*:}"
      value="${value# }"
      break
    fi
  done <"${file}"
  shopt -u nocasematch
  printf '%s' "${value}"
}

# The last line of file $1, or nothing.
last_line() {
  # the last line that is not empty, its first 1,000 bytes (a server's message may be MiBs)
  LC_ALL=C grep -a -v '^$' "$1" | tail -n 1 | head -c 1000
}

# Turn a failed response into FAIL_* (exit code, code, message, status, retry-after).
# Arguments: API path, HTTP status (may be empty), headers file, last body file, stderr file,
# gh's exit status.
classify_failure() {
  local path="$1" status="$2" headers="$3" body="$4" errfile="$5" gh_rc="$6"
  local message='' gh_text remaining retry_after reset now
  # GitHub's error bodies are a few hundred bytes: a larger one is not parsed (jq would hold
  # what it builds; a 40 MiB message was held many times over), and the message is cut.
  if [ "$(wc -c <"${body}")" -le "${MAX_ERROR_BYTES}" ]; then
    message="$(jq -rs '[.[] | objects | .message | strings][0] // empty | .[0:300]' \
      "${body}" 2>/dev/null || true)"
  fi
  gh_text="$(last_line "${errfile}")"
  if [ -z "${status}" ] && [[ "${gh_text}" =~ \(HTTP\ ([0-9]{3})\)$ ]]; then
    status="${BASH_REMATCH[1]}"  # no response headers seen: gh's error text names the status
  fi
  if [ -z "${message}" ] && [ -n "${status}" ] && [ -s "${body}" ] \
    && ! head -c "${MAX_ERROR_BYTES}" "${body}" | jq -e . >/dev/null 2>&1; then
    # not JSON (an HTML error page): its words, plainly, as the Python path says them
    # (base/errors.py plain_excerpt)
    message="$(head -c "${MAX_ERROR_BYTES}" "${body}" | jq -Rrs "${HTML_WORDS}" 2>/dev/null \
      || true)"
    message="not JSON${message:+; the page says: ${message}}"
  elif [ -z "${message}" ] && [ -n "${status}" ] \
    && [[ "${gh_text}" == *"looking for beginning of value"* \
      || "${gh_text}" == *"invalid character"* || "${gh_text}" == *"end of JSON input"* ]]; then
    # gh read a page that is not JSON (GitHub's recorded 503 is an nginx HTML page sent as
    # application/json) and printed its parse error, not the page: say the status plainly
    message="an answer that is not JSON, e.g. an HTML error page; gh does not show it"
  fi
  if [ -z "${message}" ]; then
    message="${gh_text#gh: }"
  fi
  if [ "${gh_rc}" -eq 124 ] && [ -z "${status}" ]; then
    message="gh api did not finish within ${GH_CALL_TIMEOUT} s"
  fi
  [ -n "${message}" ] || message="gh api exited with status ${gh_rc}"
  FAIL_STATUS="${status}"
  FAIL_RETRY=''
  FAIL_MESSAGE="GET ${path}: ${message}"
  case "${status}" in
    '' | 2??)
      FAIL_EXIT=6
      FAIL_CODE=network
      FAIL_STATUS=''
      if [ "${gh_rc}" -eq 4 ]; then  # gh's own "not logged in" exit status
        FAIL_EXIT=3
        FAIL_CODE=auth
      fi
      ;;
    401)
      FAIL_EXIT=3
      FAIL_CODE=auth
      ;;
    403 | 429)
      remaining="$(header_value "${headers}" x-ratelimit-remaining)"
      retry_after="$(header_value "${headers}" retry-after)"
      reset="$(header_value "${headers}" x-ratelimit-reset)"
      if [ "${status}" = 429 ] || [ "${remaining}" = 0 ] || [ -n "${retry_after}" ] \
        || [[ "${message}" == *"rate limit"* ]]; then
        FAIL_EXIT=5
        FAIL_CODE=rate_limited
        # digits are decimal whatever they start with (bash reads a leading 0 as octal, and
        # JSON has no 030): 10# then printed back plain
        if [[ "${retry_after}" =~ ^[0-9]{1,9}$ ]]; then
          FAIL_RETRY=$((10#${retry_after}))
        elif [[ "${reset}" =~ ^[0-9]{1,12}$ ]] && [ "${remaining}" = 0 ]; then
          reset=$((10#${reset}))
          # GitHub's clock (the Date header), as the Python path: else this machine's.
          now="$(jq -rn --arg d "$(header_value "${headers}" date)" \
            '($d | strptime("%a, %d %b %Y %H:%M:%S GMT") | mktime) // (now | floor)' \
            2>/dev/null || jq -n 'now | floor')"
          FAIL_RETRY=$((reset > now ? reset - now : 0))
        else
          FAIL_RETRY=60  # GitHub's advice for a limit that names no wait: at least a minute
        fi
        if [ "${FAIL_RETRY}" -gt 86400 ]; then  # the Python path's bound (MAX_REPORTED_WAIT)
          FAIL_RETRY=86400
        fi
      else
        FAIL_EXIT=3
        FAIL_CODE=auth
      fi
      ;;
    404 | 410 | 451)  # 451: a repository blocked for legal reasons, as the Python path
      FAIL_EXIT=4
      FAIL_CODE=not_found
      ;;
    *)
      FAIL_EXIT=6
      FAIL_CODE=server
      ;;
  esac
  if [[ "${FAIL_MESSAGE}" != *"(HTTP "* ]] && [ -n "${FAIL_STATUS}" ]; then
    FAIL_MESSAGE="${FAIL_MESSAGE} (HTTP ${FAIL_STATUS})"
  fi
}

# Where gh carries the token (docs/dependencies.md): only where it cannot hand it to another
# origin. gh runs with the token variables removed from its environment, so it uses a per-host
# login: a one-host configuration (GH_CONF_DIR, in the temp folder, 0700) holding the token
# gh would send for HOST (a variable's or its own login's) and nothing else; its
# hosts.yml is a FIFO fed while each gh runs, so the token never rests on disk (a SIGKILL
# leaves at most an empty pipe).
# gh follows redirects itself: its request trace (GH_DEBUG=1, one "* Request to URL" line a
# request) is checked, and an answer after a request to another origin than API_ORIGIN is exit
# 6. Pages are followed here (Link rel="next", each checked), never with --paginate.
GH_CONF_DIR=''
CONFINED_HOSTS=''  # the one-host hosts.yml, handed to gh through the FIFO, never written
API_ORIGIN=''
PAGE_STATUS=''  # the HTTP status of the last page gh_page read
readonly MAX_PAGES=100
# The largest answer read (CONTRACT section 17: 64 MiB decoded, as the Python paths), plus
# gh's header lines; gh inflates gzip itself, so its output file is bounded with `ulimit -f`
# (1 KiB blocks: gh is stopped by SIGXFSZ there) and never read past it.
readonly MAX_ANSWER_MIB=64
readonly MAX_RAW_BYTES=$(((MAX_ANSWER_MIB + 1) * 1024 * 1024))
# What jq holds in memory follows the values it parses, not the bytes (60 MiB of `[{},{},…]`
# made jq take 8 GiB): each page's leaf values are counted first by jq's streaming parser,
# and containers, in constant memory, stopping at the bound (a real page of 100 items holds a
# few thousand);
# a run's pages together are bounded too, in values and in bytes, so the merged document jq
# builds stays under about 200 MiB (CONTRACT section 22; docs/reference.md).
readonly MAX_PAGE_VALUES=200000
readonly MAX_ERROR_BYTES=65536
# jq: an error page's words — scripts, styles, comments and tags (a cut one too) left out, the
# common entities read, whitespace folded, at most 200 characters.
# shellcheck disable=SC2016
readonly HTML_WORDS='if test("<[A-Za-z!/]") then gsub("[\\r\\n\\t]"; " ")
  | gsub("<(script|style)\\b.*?(</\\1\\s*>|$)|<!--.*?(-->|$)|<[^>]*(>|$)"; " "; "i")
  | gsub("&lt;"; "<") | gsub("&gt;"; ">") | gsub("&quot;"; "\"") | gsub("&#39;"; "\u0027")
  | gsub("&nbsp;"; " ") | gsub("&amp;"; "&") else . end
  | [splits("\\s+")] | map(select(length > 0)) | join(" ")
  | if length > 200 then .[0:200] + "..." else . end'
readonly MAX_RUN_VALUES=400000
readonly MAX_RUN_BYTES=$((MAX_ANSWER_MIB * 1024 * 1024))
RUN_VALUES=0
RUN_BYTES=0

# scheme://host:port of URL $1 (the default port written out), "invalid" for an authority
# that is not a plain host name or address with a port (userinfo, a backslash, spaces).
origin_of() {
  local url="$1" scheme authority host port=''
  if ! [[ "${url}" =~ ^([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*) ]]; then
    printf 'invalid'
    return 0
  fi
  scheme="${BASH_REMATCH[1],,}"
  authority="${BASH_REMATCH[2],,}"
  if ! [[ "${authority}" =~ ^[a-z0-9.-]+(:[0-9]{1,5})?$ ]]; then
    printf 'invalid'
    return 0
  fi
  host="${authority%%:*}"
  if [[ "${authority}" == *:* ]]; then
    port="${authority##*:}"
  fi
  if [ -z "${port}" ]; then
    case "${scheme}" in
      https) port=443 ;;
      http) port=80 ;;
      *) printf 'invalid'; return 0 ;;
    esac
  fi
  printf '%s://%s:%s' "${scheme}" "${host}" "$((10#${port}))"
}

# The origin gh's REST API for HOST answers from (as gh builds it).
api_origin() {
  case "${HOST,,}" in
    github.com) origin_of "https://api.github.com" ;;
    github.localhost) origin_of "http://api.github.localhost" ;;
    *) origin_of "https://${HOST}/api/v3" ;;
  esac
}

# $1 as a YAML double-quoted scalar's content (a token is printable ASCII: only \ and ").
yaml_quoted() {
  local s="$1"
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "${s}"
}

# The token gh would send for HOST (`gh auth token`'s answer: a token variable's or gh's own
# login; without `gh auth token`, gh's rule for the variables: GH_TOKEN/GITHUB_TOKEN for
# github.com, GH_ENTERPRISE_TOKEN/GITHUB_ENTERPRISE_TOKEN for another host) goes into
# GH_CONF_DIR for HOST alone. gh's own configuration may name other hosts too: a redirect to
# one of them would carry its token, so it is never handed to `gh api`.
confine_token() {
  local token=''
  token="${GHCM_LOGIN_TOKEN}"
  if [ -z "${token}" ]; then
    case "${HOST}" in
      github.com | github.localhost) token="${GH_TOKEN:-${GITHUB_TOKEN:-}}" ;;
      *) token="${GH_ENTERPRISE_TOKEN:-${GITHUB_ENTERPRISE_TOKEN:-}}" ;;
    esac
  fi
  if [ -z "${token}" ]; then
    return 0
  fi
  GH_CONF_DIR="${tmp}/gh-config"
  mkdir -m 700 "${GH_CONF_DIR}" || die 1 internal "cannot create ${GH_CONF_DIR}"
  # gh 2.40+ migrates a configuration without `version: "1"` at start-up: a GraphQL query of
  # its own and a write of hosts.yml (which would block on the FIFO).
  printf 'version: "1"\n' >"${GH_CONF_DIR}/config.yml" \
    || die 1 internal "cannot write ${GH_CONF_DIR}/config.yml"
  CONFINED_HOSTS="$(printf '%s:\n    oauth_token: %s' "$(yaml_quoted "${HOST}")" \
    "$(yaml_quoted "${token}")")"
}

# `gh api` with no token variable in its environment, the one-host configuration when there
# is one, and its request trace on (to stderr).
run_gh_api() {
  (
    for name in "${TOKEN_VARIABLES[@]}"; do
      unset "${name}"
    done
    unset DEBUG
    export GH_DEBUG=1
    ulimit -f $((MAX_RAW_BYTES / 1024)) || exit 125
    if [ -z "${GH_CONF_DIR}" ]; then
      run_gh "$@"
      exit
    fi
    export GH_CONFIG_DIR="${GH_CONF_DIR}"
    local fifo="${GH_CONF_DIR}/hosts.yml" feeder rc=0
    rm -f "${fifo}"
    mkfifo -m 600 "${fifo}" || exit 125  # gh_get reports a gh that could not run
    # The feeder blocks in open() until gh opens the pipe to read its configuration.
    (printf '%s\n' "${CONFINED_HOSTS}" >"${fifo}") 2>/dev/null &
    feeder=$!
    run_gh "$@" || rc=$?
    kill "${feeder}" 2>/dev/null  # gh never read it: the feeder still waits in open()
    wait "${feeder}" 2>/dev/null
    rm -f "${fifo}"
    exit "${rc}"
  )
}

# Check gh's request trace in stderr file $1 (gh's exit status $2): every request on
# API_ORIGIN, else exit 6; none at all after gh answered, exit 6 too (nothing shows where it
# went). The trace lines are taken out of $1, gh's own messages stay.
check_trace() {
  local errfile="$1" gh_rc="$2" line url origin seen=0
  # grep takes the trace lines out (gh's stderr may hold one line of 40 MiB: a message a
  # server sent; bash reads it byte by byte): the few trace lines are read here, cut short.
  while IFS= read -r line || [ -n "${line}" ]; do
    url="${line#'* Request to '}"
    url="${url%$'\r'}"
    seen=$((seen + 1))
    origin="$(origin_of "${url}")"
    if [ "${origin}" != "${API_ORIGIN}" ]; then
      die 6 server "gh followed a redirect to another origin (${url:0:120}) than the API's (${API_ORIGIN}); its answer is refused (a token goes only to the API's origin)"
    fi
  done < <(LC_ALL=C grep -a '^\* Request to ' "${errfile}" | cut -c 1-4096)
  LC_ALL=C grep -a -v -E '^\* Request (to|at|took) ' "${errfile}" >"${errfile}.kept" || true
  mv -f "${errfile}.kept" "${errfile}"
  if [ "${seen}" -eq 0 ] && [ "${gh_rc}" -eq 0 ]; then
    die 6 server "gh printed no request trace (GH_DEBUG), so the origin of its answer is unknown; refused — use scripts/get_pr_comments.py"
  fi
}

# The rel="next" URL of the Link header in headers file $1, or nothing.
next_link() {
  local link
  link="$(header_value "$1" link)"
  if [[ "${link}" =~ \<([^\>]*)\>[[:space:]]*\;[[:space:]]*rel=\"next\" ]]; then
    printf '%s' "${BASH_REMATCH[1]}"
  fi
}

# GET one page ($1: an API path, or a next link already checked) through `gh api -i`: its
# body to ${tmp}/bodies, headers to ${tmp}/headers. Connection failures, responses cut short
# and 502/503/504 are tried 3 times in all. Returns 0, or 1 with FAIL_* set.
gh_page() {
  local target="$1" path="$2"
  local raw="${tmp}/raw" errfile="${tmp}/stderr" bodies="${tmp}/bodies"
  local headers="${tmp}/headers" last="${tmp}/last"
  local attempt=1 gh_rc status
  local -a flags=(api -i --hostname "${HOST}" --method GET
    -H 'Accept: application/vnd.github+json' -H 'X-GitHub-Api-Version: 2022-11-28')
  while :; do
    gh_rc=0
    run_gh_api "${flags[@]}" "${target}" >"${raw}" 2>"${errfile}" </dev/null || gh_rc=$?
    check_trace "${errfile}" "${gh_rc}"
    if [ "${gh_rc}" -eq 153 ] || [ "$(wc -c <"${raw}")" -ge "${MAX_RAW_BYTES}" ]; then
      : >"${raw}"
      die 6 server "GET ${path}: the answer is larger than ${MAX_ANSWER_MIB} MiB decoded; refused"
    fi
    status="$(split_response "${raw}" "${bodies}" "${headers}" "${last}")"
    PAGE_STATUS="${status}"
    if [ "${gh_rc}" -eq 0 ]; then
      return 0
    fi
    classify_failure "${path}" "${status}" "${headers}" "${last}" "${errfile}" "${gh_rc}"
    case "${FAIL_CODE}:${FAIL_STATUS}" in
      network:* | server:502 | server:503 | server:504)
        if [ "${attempt}" -lt 3 ]; then
          if [ "${attempt}" -eq 1 ]; then sleep 0.5; else sleep 1; fi
          attempt=$((attempt + 1))
          continue
        fi
        ;;
    esac
    return 1
  done
}

# Count the values of page body file $2 (read for $1) into the run's totals; exit 6 when the
# page or the run holds more than the bounds above. jq --stream parses in constant memory and
# stops reading at the page bound; its events are one a leaf and one a closed container (so
# `[[[…]]]` nested deep counts every array); malformed JSON is left to the parse that follows.
count_values() {
  local path="$1" body="$2" n bytes
  n="$(jq -n --stream --argjson max "$((MAX_PAGE_VALUES + 1))" \
    'reduce limit($max; inputs) as $x (0; . + 1)' "${body}" \
    2>/dev/null)" || n=0
  case "${n}" in '' | *[!0-9]*) n=0 ;; esac
  bytes="$(wc -c <"${body}")"
  RUN_VALUES=$((RUN_VALUES + n))
  RUN_BYTES=$((RUN_BYTES + bytes))
  if [ "${n}" -gt "${MAX_PAGE_VALUES}" ]; then
    die 6 server "GET ${path}: the answer holds more than ${MAX_PAGE_VALUES} JSON values; refused (no page GitHub sends is near it)"
  fi
  if [ "${RUN_VALUES}" -gt "${MAX_RUN_VALUES}" ] || [ "${RUN_BYTES}" -gt "${MAX_RUN_BYTES}" ]; then
    die 6 server "GET ${path}: the answers of this run hold more than ${MAX_RUN_VALUES} JSON values or ${MAX_ANSWER_MIB} MiB; refused"
  fi
}

# GET $1 ($3 = paginate: follow every rel="next" link on the API's origin, at most MAX_PAGES),
# writing the parsed JSON (pages merged for lists) to $2. Returns 0, or 1 with FAIL_* set.
gh_get() {
  local path="$1" out="$2" paginate="$3"
  local pages="${tmp}/pages" target="$1" next count=1 rc=0
  : >"${pages}"
  while :; do
    if ! gh_page "${target}" "${path}"; then
      return 1
    fi
    count_values "${path}" "${tmp}/bodies"
    cat "${tmp}/bodies" >>"${pages}"
    if [ "${paginate}" != paginate ]; then
      break
    fi
    next="$(next_link "${tmp}/headers")"
    if [ -z "${next}" ]; then
      break
    fi
    if [ "$(origin_of "${next}")" != "${API_ORIGIN}" ]; then
      die 6 server "GET ${path}: refusing to follow a pagination link to another origin (${next:0:120}) than the API's (${API_ORIGIN})"
    fi
    count=$((count + 1))
    if [ "${count}" -gt "${MAX_PAGES}" ]; then
      die 6 server "GET ${path}: more than ${MAX_PAGES} pages; refused"
    fi
    target="${next}"
  done
  if [ "${paginate}" = paginate ]; then
    jq -s 'if all(.[]; type == "array") then add // [] else error("not a list") end' \
      "${pages}" >"${out}" 2>/dev/null || rc=1
  else
    jq -s 'if length == 1 and (.[0] | type) == "object" then .[0]
           else error("not one object") end' "${pages}" >"${out}" 2>/dev/null || rc=1
  fi
  if [ "${rc}" -eq 0 ]; then
    return 0
  fi
  FAIL_EXIT=6
  FAIL_CODE=server
  FAIL_STATUS="${PAGE_STATUS}"
  FAIL_RETRY=''
  FAIL_MESSAGE="GET ${path}: malformed JSON in the response"
  return 1  # a malformed body is not retried
}

# --------------------------------------------------------------------------- jq programs

# Hidden characters as scripts/ghcomments/text/normalize.py HIDDEN_RE counts them: hidden_class is
# normalize.hidden_ranges() written out (Default_Ignorable_Code_Point, Cf, Cc but tab and
# newline, U+2028/2029; code points above U+FFFF as surrogate pairs; a test compares the two),
# plus a CR not before a newline and runs of two or more of U+FE00–U+FE0F. esc (FIELD_RE) adds
# tab, newline, CR, U+2028 and U+2029: what may not appear raw in a field that is not a body.
# shellcheck disable=SC2016  # $ENV is jq's
readonly JQ_LIB='
def hidden_class: "\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f-\u009f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u115f-\u1160\u17b4-\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff0-\ufffb\ud804\udcbd\ud804\udccd\ud80d\udc30-\ud80d\udc3f\ud82f\udca0-\ud82f\udca3\ud834\udd73-\ud834\udd7a\udb40\udc00-\udb43\udfff";
# The hidden flags of a string, one per code point, in one pass (jq 1.6 takes quadratic time
# over match(…; "g") and gsub: 250,000 zero-width spaces in one body ran for minutes): a CR is
# hidden unless a newline follows, U+FE00–U+FE0F only in runs of two or more (HIDDEN_RE).
def hidden_ranges: reduce (hidden_class | explode[]) as $c ({r: [], dash: false};
  if $c == 45 then .dash = true
  elif .dash then .r[(.r | length) - 1][1] = $c | .dash = false
  else .r += [[$c, $c]] end) | .r;
def vs16: . != null and . >= 65024 and . <= 65039;
def hidden_flags: explode as $p | hidden_ranges as $r
  | [range(0; $p | length) as $i | $p[$i] as $c
     | if $c >= 32 and $c < 127 then false
       elif $c == 13 then $p[$i + 1] != 10
       elif $c | vs16 then ($i > 0 and ($p[$i - 1] | vs16)) or ($p[$i + 1] | vs16)
       else any($r[]; $c >= .[0] and $c <= .[1]) end];
def hidden_count: if type == "string" then [hidden_flags[] | select(.)] | length else 0 end;
def hex4: [recurse(if . >= 16 then (. / 16 | floor) else empty end) | . % 16] | reverse
  | map("0123456789ABCDEF"[.:(. + 1)]) | join("")
  | if length < 4 then ("0000"[length:] + .) else . end;
def escapes: explode | map("<U+" + hex4 + ">") | join("");
def reveal: if type == "string" then explode as $p | hidden_flags as $h
  | [range(0; $p | length) as $i | [$p[$i]] | implode | if $h[$i] then escapes else . end]
  | join("") else . end;
# A field that is not a body, for a summary line: never null, never a raw newline or control.
def esc: (if . == null then "" elif type == "string" then . else tojson end)
  | explode as $p | hidden_flags as $h
  | [range(0; $p | length) as $i | $p[$i] as $c | [$c] | implode
     | if $h[$i] or $c == 9 or $c == 10 or $c == 13 or $c == 8232 or $c == 8233
       then escapes else . end] | join("");
# Every token of the environment and of the gh login out of every string, value by value (the
# output stays JSON), in every printable form: raw, and each character raw, percent-encoded
# (either case: %2f is %2F) or \u-escaped, in any mix (the rule of the Python scrubber).
def secrets: [$ENV.GH_TOKEN, $ENV.GITHUB_TOKEN, $ENV.GH_ENTERPRISE_TOKEN,
    $ENV.GITHUB_ENTERPRISE_TOKEN, $ENV.GHCM_LOGIN_TOKEN]
  | map(select(. != null and . != "")) | unique | sort_by(- length);
def hex2: [(. / 16 | floor), (. % 16)] | map("0123456789abcdef"[.:(. + 1)]) | join("");
def anycase: explode | map([.] | implode | if test("[a-f]") then "[" + . + ascii_upcase + "]"
  else . end) | join("");
def token_re: explode | map(hex2 as $h
  | "(?:\\x{" + $h + "}|%" + ($h | anycase) + "|\\\\u00" + ($h | anycase)
    + (if $h == "2f" then "|\\\\/" else "" end) + ")") | join("");
def scrub_with($secrets): reduce $secrets[] as $s (.; split($s) | join("***")
  | if test("[%\\\\]") then gsub($s | token_re; "***") else . end);
def scrub_string: scrub_with(secrets);
def scrub_all: secrets as $secrets
  | if ($secrets | length) == 0 then .
    else walk(if type == "string" then scrub_with($secrets) else . end) end;
# gh writes control characters as ^@ … ^_ (and literal \u001b text as \^[): a caret
# sequence may come from that rewrite. gh 2.23 also rewrites literal \u00XX text (\u00e9 becomes
# \é): a backslash followed by a character up to U+00FF may come from that one.
def caret_marked: type == "string" and test("\\^[@-_]");
def backslash_marked: type == "string" and test("\\\\[\u0000-\u00ff]");
'

# The types the output relies on, checked on the way in (as the Python path does): a wrong
# one is a malformed answer (exit 6; for reviews and issue comments, a limitation).
readonly JQ_SHAPES='
def str_or_null: . == null or type == "string";
def num_or_null: . == null or type == "number";
def ok_user: . == null or (type == "object" and (.login | str_or_null)
  and (.type | str_or_null));
def ok_item: type == "object" and (.id | type) == "number" and (.user | ok_user)
  and all(.body, .created_at, .updated_at, .submitted_at, .html_url, .author_association,
          .state, .path; str_or_null)
  and all(.line, .original_line, .position; num_or_null);
def ok_list: type == "array" and all(.[]; ok_item);
def ok_pull: type == "object" and all(.title, .state, .html_url, .merged_at; str_or_null);
'

# Whether file $2 passes shape check $1 (ok_list or ok_pull).
has_shape() {
  jq -e "${JQ_SHAPES} $1" "$2" >/dev/null 2>&1
}

# shellcheck disable=SC2016  # $names in jq programs are jq variables
readonly JQ_NORMALISE='
def body_fields: {body: .body,
  bodyChars: (if (.body | type) == "string" then (.body | length) else null end),
  bodyTruncated: false, hiddenCharacters: (.body | hidden_count)};
def base($type; $created): {id: .id, author: (.user.login // null),
  authorType: (.user.type // null), authorAssociation: (.author_association // null)}
  + body_fields + {commentType: $type, createdAt: $created,
  updatedAt: (if $type == "review" then null else (.updated_at // null) end),
  lastEditedAt: null, url: (.html_url // null)};
def inline: base("inline"; .created_at // null) + {line: .line, originalLine: .original_line,
  position: .position, file: (.path // null), state: null};
def review: base("review"; .submitted_at // null)
  + {line: null, originalLine: null, position: null, file: null, state: (.state // null)};
def issue_comment: base("issue_comment"; .created_at // null)
  + {line: null, originalLine: null, position: null, file: null, state: null};
def is_system: (.commentType == "issue_comment" and .authorType == "Bot")
  or (.commentType == "review" and .state == "COMMENTED" and ((.body // "") == ""));
def author_ok: if $author == "" then true
  else ((.author // "") | ascii_downcase) as $a | ($author | ascii_downcase) as $w
    | ($a == $w or $a == ($w + "[bot]")) end;
def order: sort_by(.createdAt, .id);

($pr[0]) as $p
| (($inline[0] // []) | map(inline)) as $all_inline
| ((($reviews[0] // []) | map(review)) + (($issues[0] // []) | map(issue_comment))) as $all_tl
| ($all_tl | map(select(is_system and author_ok)) | length) as $system_count
| ($all_inline | map(select(($file_set == 0 or .file == $file) and author_ok)) | order)
    as $review_comments
| ($all_tl | map(select(($include_system == 1 or (is_system | not)) and author_ok)) | order)
    as $timeline
| ([$review_comments[], $timeline[]] | map(select(.body | caret_marked) | .id)) as $carets
| ([$review_comments[], $timeline[]] | map(select(.body | backslash_marked) | .id))
    as $backslashes
| {
    repository: $repository,
    pullRequest: $number,
    title: ($p.title // null),
    state: (if $p.merged_at != null then "MERGED"
            elif $p.state == "open" then "OPEN"
            elif $p.state == "closed" then "CLOSED"
            else null end),
    url: ($p.html_url // null),
    retrievedAt: (now | floor | todate),
    refreshed: true,
    reviewThreads: [],
    reviewComments: $review_comments,
    timelineComments: $timeline,
    limitations: ([$resolution_note]
      + (if $file_set == 1 then ["--file applies to inline review comments only: timeline comments (reviews, issue comments) have no file and are left as they are"] else [] end)
      + (if $include_system == 0 and $system_count > 0
         then ["\($system_count) system event(s) left out (issue comments by bots, COMMENTED reviews with an empty body); pass --include-system to include them"]
         else [] end)
      + (if ($carets | length) > 0
         then ["gh rewrites control characters in bodies into caret notation (ESC becomes ^[), so such bodies cannot be returned byte for byte: the bodies of comment(s) \($carets | map(tostring) | join(", ")) hold caret sequences that may come from that rewrite (or be literal text); their body, bodyChars and hiddenCharacters reflect the text as gh returned it"]
         else [] end)
      + (if ($backslashes | length) > 0
         then ["gh 2.23 (and possibly other versions) also rewrites literal \\u00XX text in bodies (\\u00e9 becomes \\é): the bodies of comment(s) \($backslashes | map(tostring) | join(", ")) hold backslashes and may differ from the text on GitHub in that way; their bodyChars and hiddenCharacters reflect the text as gh returned it"]
         else [] end)
      + (if ($p.title | caret_marked) or ($p.title | backslash_marked)
         then ["the title may have been rewritten by gh in the same way (caret notation or a backslash sequence)"]
         else [] end)
      + $gaps)
  }
| scrub_all
'

# shellcheck disable=SC2016
readonly JQ_SUMMARY='
def indent($p): (. // "") | reveal | gsub("\r\n"; "\n") | split("\n") | map($p + .) | join("\n");
def who: "\(.author // "(unknown)" | esc)"
  + (if .authorAssociation != null and .authorAssociation != "NONE"
     then " (\(.authorAssociation | esc))" else "" end);
def where: if .line != null then "line \(.line | esc)"
  elif .originalLine != null then "original line \(.originalLine | esc) (outdated)"
  else "file-level" end;
def text: if (.body // "") == "" then "      (no text)" else (.body | indent("      ")) end;
[
  "Pull request \($repository | esc)#\($number): \(.title // "(no title)" | esc)",
  "State: \(.state // "unknown" | esc)",
  "URL: \(.url // "unknown" | esc)",
  "Retrieved: \(.retrievedAt | esc) (refreshed; REST fallback through gh)",
  "",
  "Inline review comments (resolution state unknown): \(.reviewComments | length)",
  (if (.reviewComments | length) == 0 then "  (none)" else
    (.reviewComments | group_by(.file) | .[]
      | "  \(.[0].file // "(no file)" | esc)",
        (.[] | "    - \(who), \(where), \(.createdAt // "no date" | esc) [id \(.id | esc)]",
               text))
   end),
  "",
  "General feedback (reviews, issue comments): \(.timelineComments | length)",
  (if (.timelineComments | length) == 0 then "  (none)" else
    (.timelineComments[]
      | "  - \(who), \(if .commentType == "review" then "review \(.state // "" | esc)"
                       else "comment" end), \(.createdAt // "no date" | esc) [id \(.id | esc)]",
        text)
   end),
  "",
  "Notes:",
  (.limitations[] | "  - \(esc)")
] | join("\n")
'

# --------------------------------------------------------------------------- main

# Fetch a secondary part (reviews, issue comments): on failure leave it empty and note the gap.
fetch_secondary() {
  local what="$1" path="$2" out="$3" gaps="$4"
  if gh_get "${path}" "${out}" paginate; then
    if has_shape ok_list "${out}"; then
      return 0
    fi
    FAIL_MESSAGE="GET ${path}: malformed response (a field of the wrong type)"
  fi
  err "${what} unavailable: ${FAIL_MESSAGE}"
  jq -n --arg what "${what}" --arg msg "${FAIL_MESSAGE}" \
    '"\($what) unavailable (\($msg)): timelineComments lacks them"' >>"${gaps}"
  printf '[]\n' >"${out}"
}

main() {
  local base gaps
  parse_args "$@"
  require_tool jq "install jq"
  require_tool gh "install the GitHub CLI"
  check_tokens
  if [ -z "${OWNER}" ] && [ -z "${REPO}" ]; then
    repo_from_remote
  fi
  check_names
  check_remote_host
  if [ -n "${GH_HOST:-}" ]; then
    HOST="${GH_HOST}"
  elif [ -z "${HOST}" ]; then
    HOST="github.com"
  fi
  if ! gh_logged_in; then
    die 3 auth "gh is not logged in to ${HOST}: run 'gh auth login --hostname ${HOST}' or set GH_TOKEN"
  fi

  # shellcheck disable=SC2154  # excode is assigned by the trap itself
  trap 'excode=$?; trap - EXIT; rm -rf "$tmp"; exit $excode' INT TERM EXIT
  if ! tmp="$(mktemp -d "${TMPDIR:-/tmp}/get-pr-comments.XXXXXX" 2>/dev/null)"; then
    die 1 internal "cannot create a temporary directory in ${TMPDIR:-/tmp}"
  fi

  API_ORIGIN="$(api_origin)"
  confine_token
  base="repos/${OWNER}/${REPO}"
  gaps="${tmp}/gaps"
  : >"${gaps}"

  if ! gh_get "${base}/pulls/${PR}" "${tmp}/pull.json" single; then
    if [ "${FAIL_EXIT}" -eq 4 ]; then
      FAIL_MESSAGE="pull request ${OWNER}/${REPO}#${PR} not found or not visible to the gh login (${FAIL_MESSAGE})"
    fi
    die "${FAIL_EXIT}" "${FAIL_CODE}" "${FAIL_MESSAGE}" "${FAIL_STATUS}" "${FAIL_RETRY}"
  fi
  if ! has_shape ok_pull "${tmp}/pull.json"; then
    die 6 server "GET ${base}/pulls/${PR}: malformed response (a field of the wrong type)"
  fi
  if ! gh_get "${base}/pulls/${PR}/comments?per_page=100" "${tmp}/inline.json" paginate; then
    die "${FAIL_EXIT}" "${FAIL_CODE}" "${FAIL_MESSAGE}" "${FAIL_STATUS}" "${FAIL_RETRY}"
  fi
  if ! has_shape ok_list "${tmp}/inline.json"; then
    die 6 server "GET ${base}/pulls/${PR}/comments: malformed response (a field of the wrong type)"
  fi
  fetch_secondary reviews "${base}/pulls/${PR}/reviews?per_page=100" "${tmp}/reviews.json" \
    "${gaps}"
  fetch_secondary "issue comments" "${base}/issues/${PR}/comments?per_page=100" \
    "${tmp}/issues.json" "${gaps}"

  with_tokens jq -n \
    --slurpfile pr "${tmp}/pull.json" \
    --slurpfile inline "${tmp}/inline.json" \
    --slurpfile reviews "${tmp}/reviews.json" \
    --slurpfile issues "${tmp}/issues.json" \
    --slurpfile gaps "${gaps}" \
    --arg repository "${OWNER}/${REPO}" \
    --argjson number "${PR}" \
    --arg resolution_note "${RESOLUTION_NOTE}" \
    --arg file "${FILE_FILTER}" \
    --argjson file_set "${FILE_SET}" \
    --arg author "${AUTHOR_FILTER}" \
    --argjson include_system "${INCLUDE_SYSTEM}" \
    "${JQ_LIB} ${JQ_NORMALISE}" >"${tmp}/result.json" \
    || die 1 internal "normalising the responses failed (jq)"

  if [ "${FORMAT}" = json ]; then
    cat "${tmp}/result.json"
  else
    jq -r --arg repository "${OWNER}/${REPO}" --argjson number "${PR}" \
      "${JQ_LIB} ${JQ_SUMMARY}" "${tmp}/result.json" \
      || die 1 internal "rendering the summary failed (jq)"
  fi
}

main "$@"
