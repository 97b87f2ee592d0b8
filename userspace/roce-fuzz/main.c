// SPDX-License-Identifier: GPL-2.0
/*
 * roce-fuzz: crafted RoCEv2 packets from a raw socket at rxe's UDP port,
 * aimed at QPs and MRs this process owns.  See usage().
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "fuzz.h"
#include "regress.h"
#include "world.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: roce-fuzz [OPTIONS]\n"
"       roce-fuzz --capture IFACE --peer ADDR [--dev DEV]\n"
"\n"
"Sends crafted RoCEv2 packets (IPv4/UDP to port 4791, valid ICRC unless a\n"
"packet is damaged on purpose) from a raw socket to 127.0.0.1, where rxe0 on\n"
"lo receives them, aimed at QPs and memory regions this process owns: RC\n"
"responders (requests at and around the expected PSN, rkeys of pinned, ODP,\n"
"read-only, deregistered and local-only MRs, VAs at and across MR bounds and\n"
"u64 wraps, DMA lengths 0/huge/wrapping), RC requesters waiting for READ and\n"
"atomic responses, UD QPs (good/bad Q_Key, sizes around the buffers and the\n"
"MTU), QP1, unused and destroyed QPNs, and random junk (any opcode, flipped\n"
"bytes, truncated headers).  Needs root (raw socket) and an rxe device on lo.\n"
"\n"
"Oracles, after every batch of packets: no byte outside an MR window changes\n"
"(canary pages around every MR), read-only and deregistered MRs never change,\n"
"bytes of a writable MR change only inside a range a packet rxe accepted aimed\n"
"at; UD QPs receive exactly the packets rxe must accept, intact; a QP no packet\n"
"got through to is unchanged and still carries verified traffic; no kernel\n"
"report in /dev/kmsg; at the end a fresh QP pair passes verified WRITE, READ,\n"
"SEND and FETCH_ADD on pinned and ODP memory.\n"
"\n"
"Options:\n"
"  --seed N         seed (default: from the clock, printed)\n"
"  --time SEC       stop after SEC seconds (default 30 unless --count)\n"
"  --count N        stop after N batches\n"
"  --batch N        run batch N of the seed alone (a finding's reproducer)\n"
"  --kinds LIST     batch kinds, comma separated: resp,comp,ud,junk (default all)\n"
"  --dev NAME       RDMA device (default rxe0)\n"
"  --corpus DIR     write each finding's reproducer to DIR/roce-fuzz-SEED-BATCH\n"
"  --keep-going     go on after a finding (exit 1 at the end)\n"
"  --progress SEC   progress line every SEC seconds (default 10, 0 off)\n"
"  --capture IFACE  ICRC check against rxe's own packets captured on IFACE\n"
"  --peer ADDR      (with --capture) IPv4 address rxe sends to\n"
"  --dump           (with --capture) print the first packets in hex\n"
"  --regress NAME   run the minimal reproducer of a bug found before (all:\n"
"                   every one): zero-len-write-data, unexpected-read-response,\n"
"                   resent-read-after-empty, ud-over-mtu\n"
"  --no-odp         register every MR pinned (an rxe without ODP, e.g. stock)\n"
"  -v, --verbose    print every packet and what the model says rxe does\n"
"  -h, --help       this text\n"
"\n"
"Exit status: 0 no finding, 1 a finding (each printed as FINDING with a\n"
"one-line reproducer), 2 usage or setup error.\n");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || !*s || *end || *s == '-' ? -1 : 0;
}

static int parse_kinds(const char *s, unsigned int *k)
{
	char buf[128], *t, *save = NULL;
	int i;

	*k = 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < FZ_NKINDS; i++)
			if (!strcmp(t, fz_kind_name[i]))
				break;
		if (i == FZ_NKINDS)
			return -1;
		*k |= 1u << i;
	}
	return *k ? 0 : -1;
}

static void progress(const struct fz_stats *st, double t, uint64_t b)
{
	printf("[roce-fuzz] %6.1fs batch %" PRIu64 ": %" PRIu64 " packets (%" PRIu64
	       " passed rxe's checks, %" PRIu64 " bad ICRC), resp %" PRIu64 " comp %" PRIu64
	       " ud %" PRIu64 " junk %" PRIu64 "; QPs exposed %" PRIu64 ", clean QPs verified %" PRIu64
	       ", UD delivered %" PRIu64 ", requester CQEs %" PRIu64 " (%" PRIu64 " errors), QP1 %" PRIu64 "\n",
	       t, b, st->pkts, st->accepted, st->bad_icrc, st->batches[KIND_RESP],
	       st->batches[KIND_COMP], st->batches[KIND_UD], st->batches[KIND_JUNK], st->exposed,
	       st->legit, st->ud_delivered, st->comp_cqe, st->comp_err, st->gsi);
	fflush(stdout);
}

static void report(const char *corpus, const char *dev, uint64_t seed, uint64_t b,
		   unsigned int kinds, const char *kind, const char *what)
{
	char repro[256], path[4096];
	FILE *f;

	snprintf(repro, sizeof(repro), "roce-fuzz --seed %" PRIu64 " --batch %" PRIu64 "%s%s%s%s",
		 seed, b, strcmp(dev, "rxe0") ? " --dev " : "", strcmp(dev, "rxe0") ? dev : "",
		 kinds != (1u << FZ_NKINDS) - 1 ? " --kinds " : "",
		 kinds != (1u << FZ_NKINDS) - 1 ? kind : "");
	printf("FINDING: seed %" PRIu64 " batch %" PRIu64 " (%s): %s\n", seed, b, kind, what);
	printf("REPRODUCE: %s\n", repro);
	fflush(stdout);
	if (!corpus)
		return;
	mkdir(corpus, 0755);
	snprintf(path, sizeof(path), "%s/roce-fuzz-%" PRIu64 "-%" PRIu64, corpus, seed, b);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "roce-fuzz: %s: %s\n", path, strerror(errno));
		return;
	}
	fprintf(f, "%s\n# %s: %s\n", repro, kind, what);
	fclose(f);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "time", required_argument, NULL, 't' },
		{ "count", required_argument, NULL, 'n' },
		{ "batch", required_argument, NULL, 'b' },
		{ "kinds", required_argument, NULL, 'k' },
		{ "dev", required_argument, NULL, 'd' },
		{ "corpus", required_argument, NULL, 'C' },
		{ "keep-going", no_argument, NULL, 'K' },
		{ "progress", required_argument, NULL, 'p' },
		{ "capture", required_argument, NULL, 'c' },
		{ "peer", required_argument, NULL, 'P' },
		{ "dump", no_argument, NULL, 'D' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "no-odp", no_argument, NULL, 'O' },
		{ "regress", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct fz_world w;
	struct fz_stats st = { { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	uint64_t seed = 0, count = 0, one = 0, v, b, first, nfind = 0, ran = 0;
	double tmax = 0, t0, last, prog = 10;
	const char *dev = "rxe0", *regress = NULL, *corpus = NULL, *capture = NULL, *peer = NULL;
	unsigned int kinds = (1u << FZ_NKINDS) - 1;
	int verbose = 0, no_odp = 0, have_seed = 0, have_one = 0, keep = 0, dump = 0, c;
	struct rng r;

	while ((c = getopt_long(argc, argv, "hv", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_u64(optarg, &seed))
				goto bad;
			have_seed = 1;
			break;
		case 't':
			if (parse_u64(optarg, &v) || !v)
				goto bad;
			tmax = (double)v;
			break;
		case 'n':
			if (parse_u64(optarg, &count) || !count)
				goto bad;
			break;
		case 'b':
			if (parse_u64(optarg, &one))
				goto bad;
			have_one = 1;
			break;
		case 'k':
			if (parse_kinds(optarg, &kinds))
				goto bad;
			break;
		case 'd':
			dev = optarg;
			break;
		case 'C':
			corpus = optarg;
			break;
		case 'K':
			keep = 1;
			break;
		case 'p':
			if (parse_u64(optarg, &v))
				goto bad;
			prog = (double)v;
			break;
		case 'c':
			capture = optarg;
			break;
		case 'P':
			peer = optarg;
			break;
		case 'D':
			dump = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'O':
			no_odp = 1;
			break;
		case 'R':
			regress = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	if (capture) {
		if (!peer)
			goto bad;
		return fz_capture(dev, capture, peer, dump);
	}
	if (!have_seed) {
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
		seed %= 1000000007ull;
	}
	if (!tmax && !count && !have_one)
		tmax = 30;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("[roce-fuzz] seed %" PRIu64 " on %s (reproduce this run: roce-fuzz --seed %" PRIu64 "%s)\n",
	       seed, dev, seed, have_one ? "" : " with the same --time/--count");
	if (fz_world_init(&w, dev, seed, no_odp)) {
		fprintf(stderr, "roce-fuzz: setup: %s\n", w.err);
		fz_world_fini(&w);
		return 2;
	}
	w.verbose = verbose;
	if (fz_calibrate(&w)) {
		fprintf(stderr, "roce-fuzz: setup: %s\n", w.err);
		fz_world_fini(&w);
		return 2;
	}
	printf("[roce-fuzz] crafted packets reach rxe: a computed ICRC is accepted, a wrong one dropped\n");
	if (regress) {
		c = fz_regress(&w, regress);
		fz_world_fini(&w);
		return c;
	}
	t0 = last = now_s();
	first = have_one ? one : 0;
	for (b = first;; b++) {
		double t = now_s() - t0;

		if (have_one ? b > one : ((count && b >= count) || (tmax && t >= tmax)))
			break;
		ran++;
		if (fz_batch(&w, seed, b, kinds, &st)) {
			nfind++;
			report(corpus, dev, seed, b, kinds,
			       fz_kind_name[fz_batch_kind(seed, b, kinds)], w.finding);
			if (!keep)
				break;
		}
		if (prog > 0 && now_s() - last >= prog) {
			last = now_s();
			progress(&st, last - t0, b + 1);
		}
	}
	if (!nfind || keep) {
		rng_seed(&r, seed, 0);
		if (fz_check_kmsg(&w) || fz_final_check(&w, &r) || fz_check_memory(&w) ||
		    fz_check_kmsg(&w)) {
			nfind++;
			report(corpus, dev, seed, b, kinds, "final", w.finding);
		}
	}
	progress(&st, now_s() - t0, ran);
	printf("[roce-fuzz] seed %" PRIu64 ": %" PRIu64 " batches in %.1f s, %" PRIu64 " finding(s)%s\n",
	       seed, ran, now_s() - t0, nfind,
	       nfind ? "" : "; the device passed verified traffic at the end");
	fz_world_fini(&w);
	return nfind ? 1 : 0;
bad:
	usage(stderr);
	return 2;
}
