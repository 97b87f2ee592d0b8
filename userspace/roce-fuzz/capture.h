/* --capture: the ICRC checked against packets rxe sends (capture.c). */
#ifndef ROCE_FUZZ_CAPTURE_H
#define ROCE_FUZZ_CAPTURE_H

/* 0: every captured ICRC matched (and enough were seen), 1: not, 2: setup. */
int fz_capture(const char *devname, const char *ifname, const char *peer, int dump);

#endif
