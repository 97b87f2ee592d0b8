#!/usr/bin/python3
"""The signal listener of tests/vm/pair, in each guest: every connection
brings one line, a signal NAME from the peer's pair_signal (tests/lib/pair.sh);
it is recorded as the file DIR/got/NAME (pair_wait polls for it) and answered
"ok".  Runs until the guest powers off.

usage: pair-signal.py PORT DIR
"""
import os
import re
import socket
import sys

port, top = int(sys.argv[1]), sys.argv[2]
got = os.path.join(top, "got")
os.makedirs(got, exist_ok=True)
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("0.0.0.0", port))
srv.listen(16)
# pair-guest.sh waits for this file before it signals anything
open(os.path.join(top, "listening"), "w").close()
while True:
    conn, _ = srv.accept()
    conn.settimeout(10)
    try:
        line = conn.makefile("r").readline().strip()
        if re.fullmatch(r"[A-Za-z0-9._-]+", line):
            open(os.path.join(got, line), "w").close()
            conn.sendall(b"ok\n")
        else:
            conn.sendall(b"bad\n")
    except OSError:
        pass
    finally:
        conn.close()
