"""The text patterns behind the instruction and script rules (secrets are detect-secrets')."""

from __future__ import annotations

import re

_FETCHER = r"(?:curl|wget|fetch|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)"
_RUNNER = (
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:/usr/bin/env\s+|/bin/)?"
    r"(?:ba|z|da|k|c|fi)?sh|python[0-9.]*|perl|ruby|node|php|iex|Invoke-Expression"
)
DOWNLOAD_RUN = re.compile(
    rf"\b{_FETCHER}\b[^\n|;]*\|\s*(?:{_RUNNER})\b"  # curl … | sh
    rf"|\b(?:(?:ba|z)?sh|python[0-9.]*|eval)\s+(?:-c\s+)?[\"']?\$\(\s*{_FETCHER}\b"  # sh -c "$(curl …)"
    rf"|<\(\s*{_FETCHER}\b"  # bash <(curl …)
    r"|\b(?:iex|Invoke-Expression)\b[^\n]{0,20}\(\s*(?:irm|iwr|New-Object\s+Net\.WebClient)"
    r"|\b(?:exec|eval)\s*\([^\n]{0,40}\b(?:urlopen|requests\.get|httpx\.get|urllib\.request|fetch)\s*\(",
    re.IGNORECASE,
)
"""Code that downloads something and runs it at once, unread."""

DOWNLOAD_RUN_PROSE = re.compile(
    r"\bdownload\b[^.\n]{0,80}?\b(?:and|then)\s+(?:run|execute|exec|source)\b", re.IGNORECASE
)
"""An order, in words, to download and run something."""

IGNORE_INSTRUCTIONS = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?"
    r"(?:previous|prior|above|earlier|preceding|original|system|developer)(?:\s+\w+)?\s+"
    r"(?:instructions?|prompts?|rules|guidelines|directions|directives|messages?)\b",
    re.IGNORECASE,
)
"""The classic prompt injection: an order to drop what the agent was told before."""

_KEY_FILE = (
    r"(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|/root|/home/\w+)[/\\]\.(?:ssh|aws|gnupg|kube|docker|azure|config/gcloud)\b"
    r"|\.aws/credentials|\.git-credentials|\.netrc\b|\.pypirc\b|\.npmrc\b"
    r"|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|/etc/shadow\b"
    r"|expanduser\(\s*[\"']~[/\\]\.(?:ssh|aws|gnupg|kube|docker|netrc)"
    r"|home\(\)\s*/\s*[\"']\.(?:ssh|aws|gnupg|kube|docker|netrc)"
)
KEY_FILE = re.compile(_KEY_FILE, re.IGNORECASE)
"""A credential file of the user's: SSH keys, cloud and registry credentials."""

DOTENV = re.compile(r"(?<![\w.-])\.env\b(?![.\w-])|\bload_dotenv\s*\(|\bdotenv\b", re.IGNORECASE)
"""A project's ``.env`` file (API keys, by convention)."""

READ_KEY_FILE_ORDER = re.compile(
    r"\b(?:read|cat|open|print|display|show|output|dump|copy|collect|gather|list|grab|extract)\b"
    rf"[^.\n]{{0,60}}?(?:{_KEY_FILE})",
    re.IGNORECASE,
)
"""An order, in words, to read the user's credential files."""

SEND_SECRET_ORDER = re.compile(
    r"\b(?:send|upload|post|transmit|exfiltrate|forward|email|paste|submit|leak|beam)\b[^.\n]{0,80}?"
    r"\b(?:credentials?|secrets?|api[ _-]?keys?|access[ _-]?keys?|tokens?|passwords?|private[ _-]keys?|"
    r"ssh[ _-]keys?|id_rsa|\.env|\.aws|\.ssh|cookies|environment variables)\b[^.\n]{0,80}?"
    r"\b(?:to|into)\s+(?:https?://|`?https?://|[\w.+-]+@[\w-]+\.\w+|(?:the|this|our|my|a|an)\s+"
    r"(?:remote\s+|external\s+|following\s+)?(?:server|endpoint|webhook|url|address|gist|pastebin|"
    r"collector|channel))",
    re.IGNORECASE,
)
"""An order, in words, to send credentials somewhere."""

NETWORK = re.compile(
    r"\brequests\.(?:post|put|get|patch|request)\b|\burllib\.request\b|\burlopen\s*\(|\bhttp\.client\b"
    r"|\bhttpx\.|\baiohttp\b|\bfetch\s*\(|\baxios\b|XMLHttpRequest|\bcurl\b|\bwget\b|\bsocket\.\w"
    r"|\bnc\s+-|\bInvoke-(?:WebRequest|RestMethod)\b|\bsmtplib\b|\bftplib\b|/dev/tcp/",
    re.IGNORECASE,
)
"""Code that talks to the network."""

BASE64_DECODE = re.compile(
    r"\bb64decode\b|\bbase64\s+(?:-d|--decode|-D)\b|\batob\s*\(|[\"']base64[\"']\s*\)"
    r"|FromBase64String|\bdecodebytes\b|codecs\.decode\([^)]*base64",
    re.IGNORECASE,
)
EXECUTE = re.compile(
    r"\b(?:exec|eval|compile)\s*\(|\bos\.system\s*\(|\bsubprocess\.|\bpopen\s*\(|\bFunction\s*\("
    r"|\bchild_process\b|\bexecSync\b|\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|\|\s*python[0-9.]*\b"
    r"|\bInvoke-Expression\b|\biex\b|\bsh\s+-c\b|\bbash\s+-c\b",
    re.IGNORECASE,
)
"""Decoding base64 and executing code: together, a payload hidden from a reader."""
BASE64_WINDOW = 2
"""Lines after a decode in which an execution still counts as running the decoded text."""
