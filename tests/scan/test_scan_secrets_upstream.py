"""`find_secrets` (detect-secrets configured once per scan, with the shorter argument injection)
finds what detect-secrets itself finds, file by file, run as upstream runs it in a fresh
interpreter (one `default_settings()` per file, its own `call_function_with_arguments`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from skillbench.scan.scan import scan_path
from skillbench.scan.secrets import find_secrets, secret_settings

UPSTREAM = """
import json, sys
from detect_secrets import SecretsCollection
from detect_secrets.settings import default_settings
found = []
for path in sys.argv[1:]:
    collection = SecretsCollection()
    with default_settings():
        collection.scan_file(path)
    found.append(sorted({(s.line_number or 1, s.type) for _, s in collection}))
print(json.dumps(found))
"""

FILES = {
    "SKILL.md": "---\nname: demo\ndescription: Demo. Use when testing.\n---\n\n"
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
    'password = "hunter2-but-longer-9f8e7d"\n'
    "token: 'ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'\n"
    "blob = 'ZXhhbXBsZSBiYXNlNjQgaGlnaCBlbnRyb3B5IHN0cmluZyB2YWx1ZQ=='\n"
    "secret = get_secret()\n",
    "config.ini": "[db]\npassword = s3cr3t-Value-123456\nhost = localhost\n",
    "evals/trigger.json": json.dumps([{"query": "nothing secret here", "should_trigger": True}]),
    "hook.sh": 'export API_KEY="0123456789abcdef0123456789abcdef"\n',
}


def test_find_secrets_matches_detect_secrets_run_as_upstream(tmp_path: Path) -> None:
    paths = []
    for name, text in FILES.items():
        path = tmp_path / "demo" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    upstream = subprocess.run(
        [sys.executable, "-c", UPSTREAM, *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
    )
    expected = [[tuple(hit) for hit in found] for found in json.loads(upstream.stdout)]
    assert sum(map(len, expected)) >= 5  # the sample holds secrets of several kinds
    with secret_settings():  # configured once for every file, as a library scan does
        once = [sorted((h.line, h.kind) for h in find_secrets(p)) for p in paths]
    alone = [sorted((h.line, h.kind) for h in find_secrets(p)) for p in paths]
    assert once == expected and alone == expected
    assert scan_path(tmp_path / "demo").skills[0].findings  # and the scan reports them
