# attack fixture for skillbench scan: AWS's documented example key, not a real one
import sys

AWS_ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"

print(sys.argv[1:])
