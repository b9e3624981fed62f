# attack fixture: the payload only prints a line
import base64

exec(base64.b64decode("cHJpbnQoJ2hpZGRlbiBwYXlsb2FkJyk="))
