"""The offline family: the local embedding backend and the lexical baseline."""
