"""What in a trace can identify people or places: patterns and classification.

Pure functions and constants, no state: the walker in `scrub.py` decides where
each rule applies. Rules err on the side of flagging, except where a false
positive would break the analysis (operator names, step and data zones).

What identifies is found by its shape more than by lists: every path (POSIX,
Windows, UNC, relative, spaces inside) loses every folder that is not a known
library's, every address-shaped token (IPv4, IPv6, MAC) and host-shaped token
(dotted lower-case labels under any top-level domain, in free text) goes, and
every key shaped like an environment variable (`SLURM_NODELIST`) is job
metadata. The lists left name what is known to be harmless: Python's and the
ML frameworks' own package names, file extensions.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from dataclasses import dataclass

from tui.scrub.known import FILE_EXTENSIONS, KNOWN_ROOTS

# Kinds, in the order reports list them.
SECRET = "secret"
EMAIL = "email"
USER = "user"
HOST = "host"
URL = "url"
PATH = "path"
METADATA = "metadata"
LOG = "log"
UNKNOWN_KEY = "unknown-key"
PROCESS = "process"
ZONE = "zone"
SHAPE = "shape"
KINDS = (
    SECRET,
    EMAIL,
    USER,
    HOST,
    URL,
    PATH,
    METADATA,
    LOG,
    UNKNOWN_KEY,
    PROCESS,
    ZONE,
    SHAPE,
)

# Placeholder stem per kind: `<host-3>`.
PLACEHOLDER_STEM = {
    SECRET: "secret",
    EMAIL: "email",
    USER: "user",
    HOST: "host",
    URL: "url",
    PATH: "path",
    METADATA: "meta",
    PROCESS: "proc",
    ZONE: "zone",
}

PLACEHOLDER_RE = re.compile(r"<(?:secret|email|user|host|url|path|meta|proc|zone)-\d+>")

# Top-level keys torch/Kineto write that carry no identity by themselves
# (their strings are still scanned). Anything else at top level is unknown.
SAFE_TOP_LEVEL = frozenset(
    {
        "schemaVersion",
        "deviceProperties",
        "distributedInfo",
        "traceEvents",
        "traceName",
        "displayTimeUnit",
        "baseTimeNanoseconds",
        "record_shapes",
        "with_stack",
        "profile_memory",
        "with_flops",
        "with_modules",
        "cupti_version",
        "cuda_runtime_version",
        "cuda_driver_version",
        "roctracer_version",
        "hip_runtime_version",
        "hip_driver_version",
    }
)

# Our collector's capture description: known, scanned with the same rules.
STEPTRACE_KEY = "steptrace"

# Kineto's own log, one line per entry; carries pids, dates, hosts and paths.
# USDT, STAGE and VERBOSE lines are what the collector keeps out of the terminal.
LOG_KEYS = frozenset(
    {
        *("INFO", "WARNING", "WARN", "ERROR", "DEBUG", "CRITICAL", "FATAL"),
        *("USDT", "STAGE", "VERBOSE"),
    }
)

_USER_KEYS = frozenset(
    {
        "username",
        "user",
        "user_name",
        "tw_user",
        "owner",
        "login",
        "logname",
        "uid_name",
    }
)
_HOST_KEYS = frozenset(
    {
        "host_name",
        "hostname",
        "host",
        "nodename",
        "node_name",
        "fqdn",
        "server",
        "host_fqdn",
        "master_addr",
        "master_address",
        "ip",
        "ip_address",
        "host_ip",
        "node_ip",
    }
)
# Job / scheduler / fleet metadata: names a job, a cluster or a machine type.
_METADATA_KEYS = frozenset(
    {
        "trace_id",
        "logical_server_subtype",
        "ai_rm_attribution",
        "job",
        "job_id",
        "job_name",
        "cluster",
        "region",
        "datacenter",
        "data_center",
        "pod_name",
        "namespace",
        "experiment",
        "run_id",
    }
)
_METADATA_PREFIXES = (
    "tw_",
    "mast_",
    "slurm_",
    "k8s_",
    "kubernetes_",
    "pbs_",
    "lsb_",
    "sge_",
)


# A key shaped like an environment variable (`SLURM_NODELIST`, `MY_SITE_RACK`):
# a job's environment copied into the trace, whatever its scheduler.
_ENVIRONMENT_KEY_RE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


@functools.cache
def key_kind(key: str) -> str | None:
    """The kind a dict key declares its value to be, if any (user, host, metadata)."""
    low = key.lower()
    if low in _USER_KEYS:
        return USER
    if low in _HOST_KEYS:
        return HOST
    if low in _METADATA_KEYS or low.startswith(_METADATA_PREFIXES):
        return METADATA
    if _ENVIRONMENT_KEY_RE.fullmatch(key):
        return METADATA
    return None


# Identity values too generic to hunt for in free text (they would match
# ordinary words and identify no one).
_GENERIC_TOKENS = frozenset(
    {
        "root",
        "user",
        "admin",
        "ubuntu",
        "nobody",
        "guest",
        "localhost",
        "localhost.localdomain",
        "unknown",
        "none",
        "null",
        "default",
        "true",
        "false",
        "prod",
        "python",
        "test",
        "127.0.0.1",
        "::1",
    }
)
_MIN_TOKEN = {USER: 3, HOST: 3, METADATA: 8}


def huntable(kind: str, value: str) -> bool:
    """Whether an identity value is specific enough to replace wherever it appears."""
    value = value.strip()
    if len(value) < _MIN_TOKEN.get(kind, 3) or value.lower() in _GENERIC_TOKENS:
        return False
    if PLACEHOLDER_RE.search(value):
        return False
    return not value.isdigit()


def host_tokens(host: str) -> list[str]:
    """A host name and its short form (`devgpu1.x.example.com` → `devgpu1`)."""
    host = host.strip().rstrip(".")
    tokens = [host]
    short = host.split(".", 1)[0]
    if short != host and not _IPV4_RE.fullmatch(host) and huntable(HOST, short):
        tokens.append(short)
    return tokens


# --- zones ----------------------------------------------------------------

# Zone names that must never be renamed: steps, our collector's zones, and
# ranges PyTorch itself records.
_OWN_ZONES = frozenset({"lecture_batch_cpu", "transfert", "entrainement"})
_TORCH_ZONE_RE = re.compile(
    r"ProfilerStep#\d+"
    r"|enumerate\(DataLoader\)#.*"
    r"|Optimizer\.\w+#\w+\.\w+"
    r"|(?:nccl|gloo|hccl|mpi|ucc|xccl|c10d):\w+"
    r"|(?:DistributedDataParallel|FullyShardedDataParallel)\.\w+"
    r"|Torch-Compiled Region: \d+/\d+"
    r"|CompiledFunction(?:Backward)?"
    r"|## Call CompiledFxGraph \w+ ##"
    r"|record_param_comms"
)
ZONE_CATEGORIES = frozenset({"user_annotation", "gpu_user_annotation"})


def is_known_zone(name: str) -> bool:
    """A zone name that PyTorch or steptrace writes: not free text."""
    return (
        name in _OWN_ZONES
        or _TORCH_ZONE_RE.fullmatch(name) is not None
        or PLACEHOLDER_RE.fullmatch(name) is not None
    )


# --- process and thread names ----------------------------------------------

_GENERIC_PROCESS_RE = re.compile(
    r"python[\d.]*|pt_\w+|torch_\w+|(?:GPU|MTIA|CPU|XPU|HPU|TPU|NPU|Device|Stream) ?\d*"
    r"|Spans|Traces|\d*|<proc-\d+>"
)
THREAD_NAME_RE = re.compile(r"(thread \d+ \()(.*)(\))", re.DOTALL)


def is_generic_process(name: str) -> bool:
    """A process or thread command name that says nothing about the job."""
    return _GENERIC_PROCESS_RE.fullmatch(name) is not None


# Linux truncates thread command names to 15 characters; keying placeholders
# on that prefix maps a process and its truncated threads to one placeholder.
COMM_LENGTH = 15

# --- shapes ----------------------------------------------------------------

SHAPE_ARGS = frozenset({"Input Dims", "Input Strides", "Concrete Inputs"})

# --- free-text detectors ---------------------------------------------------

_SECRET_RES = (
    re.compile(
        r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"
    ),
    re.compile(r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{20,}"),
    re.compile(r"(?<![A-Za-z0-9])sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"),
    re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])"),
    re.compile(r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}"),
    re.compile(r"(?<![A-Za-z0-9])glpat-[A-Za-z0-9_-]{20,}"),
    re.compile(
        r"(?<![A-Za-z0-9])eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"
    ),
    # A PEM block, header to footer (or to the end of the text when cut off):
    # the body is the key.
    re.compile(
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----(?:.*?-----END [A-Z ]*PRIVATE KEY-----"
        r"|[A-Za-z0-9+/=\s\\n]*)",
        re.DOTALL,
    ),
    # A key's body on its own: DER in base64 starts with `MII`.
    re.compile(r"(?<![A-Za-z0-9+/])MII[A-Za-z0-9+/]{40,}={0,2}(?![A-Za-z0-9+/=])"),
)
# Only the value (group 1) is secret: `token=…`, `Bearer …`, `x=<long hex>`.
_SECRET_VALUE_RES = (
    re.compile(
        r"(?i)(?<![A-Za-z0-9])[A-Za-z0-9_.-]*"
        r"(?:token|secret|passw(?:or)?d|pwd|api[_-]?key|access[_-]?key|auth|credentials?"
        r"|private[_-]?key)"
        r"""["']?\s*[=:]\s*["']?([^\s"',;&)<>]{6,})"""
    ),
    re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)"),
    re.compile(
        r"=\s*([A-Fa-f0-9]{32,}|[A-Za-z0-9+/_-]{40,}={0,2})(?![A-Za-z0-9+/=_-])"
    ),
)
_URL_RE = re.compile(r"(?i)(?<![\w.+-])[a-z][a-z0-9+.-]*://[^\s\"'<>;]+")
_EMAIL_RE = re.compile(
    r"(?<![\w.+%-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}(?![\w-])"
)
_IPV4_RE = re.compile(
    r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
    r"(?![\w.])"
)
_FQDN_RE = re.compile(
    r"(?i)(?<![\w.@/-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+"
    r"(?:com|net|org|edu|gov|mil|io|internal|lan|corp|intra|intranet|localdomain"
    r"|fr|de|uk|cn|jp|eu|ch|nl|ca|au|kr|ru|br|it|es|se)"
    r"(?![\w.-])"
)
# Absolute POSIX paths (two segments at least, so `/tmp` or `a / b` pass),
# home-relative and explicitly relative paths, Windows drive paths, UNC paths.
# A folder's name may hold single spaces (`/srv/Vision Team/x.pt`); the last
# segment may not, so a path ends at the first space after its file name.
_SEG = r"[\w.+@%~-]+"
_SPACED = rf"{_SEG}(?: {_SEG})*"
_POSIX_PATH_RE = re.compile(
    rf"(?<![\w.~/>:-])(?:/(?:{_SPACED}/)+{_SEG}/?|/{_SEG}/|~(?:[a-z_][\w.-]*)?/(?:{_SEG}/?)*"
    rf"|\.\.?/(?:{_SPACED}/)*{_SEG}/?)"
)
_WIN_PATH_RE = re.compile(r"(?<![\w])[A-Za-z]:\\(?:[\w.+@%~ -]+\\)*[\w.+@%~-]*")
_UNC_PATH_RE = re.compile(
    rf"(?<![\w\\])\\\\[\w$.-]+(?:\\{_SPACED}(?=\\))*(?:\\[\w.+@%~$-]*)"
)
# A relative path with no `./`: three segments at least, or two and a file
# extension (`data/alice/x.bin`, `alice/x.bin`), never `GB/s` or `0/0`.
_RELATIVE_PATH_RE = re.compile(
    rf"(?<![\w.~/>@:\\-])(?:(?:{_SPACED}/){{2,}}{_SEG}|{_SEG}/{_SEG}\.[A-Za-z0-9]{{1,8}})"
    r"(?![\w/])"
)
_PACKAGE_DIRS = ("/site-packages/", "/dist-packages/", "\\site-packages\\")
# A host name under any top-level domain: three lower-case labels at least,
# in free text only (dotted Python names are ruled out by their first label,
# file names by their last).
_ANY_HOST_RE = re.compile(
    r"(?<![\w.@/-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){2,}[a-z]{2,24}(?![\w.-])"
)
# IPv6 candidates (checked by `ipaddress`; three groups at least, or in
# brackets, so `c10d::add` stays an operator) and MAC addresses.
_IPV6_RE = re.compile(
    r"(?<![\w:.])(\[)?((?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4})(?(1)\])(?![\w:.])"
)
_MAC_RE = re.compile(
    r"(?<![\w:-])[0-9A-Fa-f]{2}([:-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}(?![\w:-])"
    r"|(?<![\w.])[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}(?![\w.])"
)
# `~alice` (a user's home, as the shell writes it); never a C++ destructor
# (`Foo::~Foo`), which follows `::`.
_TILDE_USER_RE = re.compile(r"(?<![\w:~])~([a-z_][a-z0-9_.-]{0,31})(?![\w.-])(?!/)")

# Where a path names its owner.
_PATH_USER_RES = (
    re.compile(r"(?:^|/)(?:home|Users|users|u)/([\w.-]+)/"),
    re.compile(r"/data/users/([\w.-]+)"),
    re.compile(r"(?i)^[A-Z]:\\Users\\([^\\]+)"),
    re.compile(r"/torchinductor_([\w.-]+)"),
    re.compile(r"^~([a-z_][\w.-]*)/"),
)


@dataclass(frozen=True)
class Match:
    """One sensitive span in a string: what it is and what to hunt for next."""

    start: int
    end: int
    kind: str
    value: str


def _ipv6(m: re.Match[str]) -> Match | None:
    candidate = m.group(2)
    try:
        address = ipaddress.IPv6Address(candidate)
    except ValueError:
        return None
    groups = [group for group in candidate.split(":") if group]
    if address.is_loopback or address.is_unspecified:
        return None
    if len(groups) < 3 and m.group(1) is None:
        return None
    return Match(m.start(2), m.end(2), HOST, candidate)


def _relative_path(m: re.Match[str]) -> Match | None:
    value = m.group(0)
    parts = value.split("/")
    if parts[0] in KNOWN_ROOTS or not any(c.isalpha() for c in value):
        return None
    return Match(m.start(), m.end(), PATH, value)


def _any_host(m: re.Match[str]) -> Match | None:
    labels = m.group(0).split(".")
    if labels[0] in KNOWN_ROOTS or labels[-1] in FILE_EXTENSIONS:
        return None
    return Match(m.start(), m.end(), HOST, m.group(0))


def find_sensitive(text: str, free_text: bool = False) -> list[Match]:
    """Every secret, e-mail, URL, path, host and IP address in `text` (may overlap).

    `free_text`: also the shapes an operator name could take by chance
    (relative paths without `./`, host names under any top-level domain).
    """
    found: list[Match] = []
    for rx in _SECRET_RES:
        found.extend(
            Match(m.start(), m.end(), SECRET, m.group(0)) for m in rx.finditer(text)
        )
    for rx in _SECRET_VALUE_RES:
        found.extend(
            Match(m.start(1), m.end(1), SECRET, m.group(1)) for m in rx.finditer(text)
        )
    if "://" in text:
        found.extend(
            Match(m.start(), m.end(), URL, m.group(0)) for m in _URL_RE.finditer(text)
        )
    if "@" in text:
        found.extend(
            Match(m.start(), m.end(), EMAIL, m.group(0))
            for m in _EMAIL_RE.finditer(text)
        )
    if "/" in text:
        for m in _POSIX_PATH_RE.finditer(text):
            value = m.group(0)
            if value.startswith("./") and "/" not in value[2:].rstrip("/"):
                continue  # `./x.json` names no directory
            found.append(Match(m.start(), m.end(), PATH, value))
    if ":\\" in text:
        found.extend(
            Match(m.start(), m.end(), PATH, m.group(0))
            for m in _WIN_PATH_RE.finditer(text)
        )
    if "\\\\" in text:
        found.extend(
            Match(m.start(), m.end(), PATH, m.group(0))
            for m in _UNC_PATH_RE.finditer(text)
        )
    if ":" in text:
        found.extend(hit for m in _IPV6_RE.finditer(text) if (hit := _ipv6(m)))
    if ":" in text or "-" in text or "." in text:
        found.extend(
            Match(m.start(), m.end(), HOST, m.group(0)) for m in _MAC_RE.finditer(text)
        )
    if "~" in text:
        found.extend(
            Match(m.start(1), m.end(1), USER, m.group(1))
            for m in _TILDE_USER_RE.finditer(text)
        )
    if free_text and "/" in text:
        found.extend(
            hit for m in _RELATIVE_PATH_RE.finditer(text) if (hit := _relative_path(m))
        )
    if free_text and "." in text:
        found.extend(hit for m in _ANY_HOST_RE.finditer(text) if (hit := _any_host(m)))
    if "." in text:
        found.extend(
            Match(m.start(), m.end(), HOST, m.group(0)) for m in _FQDN_RE.finditer(text)
        )
        found.extend(
            Match(m.start(), m.end(), HOST, m.group(0)) for m in _IPV4_RE.finditer(text)
        )
    return found


def resolve(found: list[Match]) -> list[Match]:
    """Drop overlapping matches: earliest first, then longest.

    A host inside a URL or a user inside a path is reported once, as the
    larger thing.
    """
    if len(found) < 2:
        return found
    found.sort(key=lambda m: (m.start, -(m.end - m.start)))
    kept: list[Match] = []
    end = -1
    for m in found:
        if m.start >= end:
            kept.append(m)
            end = m.end
    return kept


def split_path(path: str) -> tuple[str, str]:
    """(private prefix, public rest) of a path.

    The rest is the file's basename, or for installed packages everything after
    `site-packages/` (`torch/nn/modules/module.py` names no one).
    """
    for marker in _PACKAGE_DIRS:
        at = path.find(marker)
        if at >= 0:
            cut = at + len(marker) - 1
            return path[:cut], path[cut:]
    sep = "\\" if "\\" in path and "/" not in path else "/"
    if path.endswith(sep):
        return path.rstrip(sep), sep  # a directory: all of it is private
    at = path.rfind(sep)
    if "." not in path[at + 1 :]:
        return path, ""  # a folder's name (`/data/users/alice`): private too
    return path[:at], path[at:]


def users_in_path(path: str) -> list[str]:
    """User names a path gives away (`/home/alice/…`, `/tmp/torchinductor_alice/…`)."""
    found = (m.group(1) for rx in _PATH_USER_RES for m in rx.finditer(path))
    return list(dict.fromkeys(found))


def token_pattern(tokens: list[str]) -> re.Pattern[str] | None:
    """One regex matching any of `tokens` as a whole word, longest first."""
    if not tokens:
        return None
    alternatives = "|".join(
        re.escape(t) for t in sorted(set(tokens), key=len, reverse=True)
    )
    return re.compile(rf"(?i)(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])")
