#!/usr/bin/python3
"""Print TCP_NODELAY of every connected TCP socket that the processes PID...
hold (their fds copied with pidfd_getfd(2); needs root or ptrace rights).
bench/pair-latency.sh uses it on the two QEMUs of a tests/vm/pair TCP link.

usage: tcp-nodelay.py PID...
"""
import ctypes
import os
import socket
import sys

SYS_PIDFD_OPEN, SYS_PIDFD_GETFD = 434, 438


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    libc = ctypes.CDLL(None, use_errno=True)
    for pid in map(int, sys.argv[1:]):
        pfd = libc.syscall(SYS_PIDFD_OPEN, pid, 0)
        if pfd < 0:
            print('pid %d: pidfd_open: %s' % (pid, os.strerror(ctypes.get_errno())))
            continue
        for fd in sorted(os.listdir('/proc/%d/fd' % pid), key=int):
            try:
                if not os.readlink('/proc/%d/fd/%s' % (pid, fd)).startswith('socket:'):
                    continue
            except OSError:
                continue
            nfd = libc.syscall(SYS_PIDFD_GETFD, pfd, int(fd), 0)
            if nfd < 0:
                continue
            s = socket.socket(fileno=nfd)
            try:
                if s.type == socket.SOCK_STREAM and s.family == socket.AF_INET:
                    print('pid %d fd %s %s:%d -> %s:%d TCP_NODELAY=%d' % (
                        (pid, fd) + s.getsockname() + s.getpeername() +
                        (s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY),)))
            except OSError:
                pass  # a listening socket has no peer
            finally:
                s.detach()
                os.close(nfd)
        os.close(pfd)


main()
