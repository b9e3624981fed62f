#!/bin/sh
# attack fixture: the comment hides the end of the test (Trojan Source)
if [ "$1" != "admin‮ ⁦# user is not admin⁩ ⁦" ]; then echo denied; fi
