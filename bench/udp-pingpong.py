#!/usr/bin/python3
"""UDP ping-pong between two hosts: the round-trip time of small datagrams
through the kernel's UDP path, with no RDMA in it (bench/pair-latency.sh).

usage: udp-pingpong.py server ADDR PORT N    echo up to N datagrams, then exit
       udp-pingpong.py client ADDR PORT N    N round trips, one at a time;
                                              prints "min median p90 max" in ms
"""
import socket
import statistics
import sys
import time


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ('server', 'client'):
        sys.exit(__doc__)
    mode, host, port, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(120)
    if mode == 'server':
        s.bind((host, port))
        for _ in range(n):
            data, peer = s.recvfrom(64)
            s.sendto(data, peer)
        return
    rtt = []
    for i in range(n):
        t0 = time.perf_counter()
        s.sendto(b'%d' % i, (host, port))
        s.recv(64)
        rtt.append((time.perf_counter() - t0) * 1e3)
    rtt.sort()
    print('%.3f %.3f %.3f %.3f' % (rtt[0], statistics.median(rtt), rtt[int(0.9 * (n - 1))], rtt[-1]))


main()
