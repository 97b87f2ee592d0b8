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
#include "opts.h"
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

/* The command line, parsed once. */
struct rf_opts {
	uint64_t seed;		/* --seed, else from the clock */
	bool have_seed;
	uint64_t count;		/* --count: batches, 0 = no limit */
	uint64_t one;		/* --batch: run this batch alone */
	bool have_one;
	double tmax;		/* --time: seconds, 0 = no limit */
	double progress;	/* --progress: seconds between lines, 0 = none */
	bool kind[FZ_NKINDS];	/* --kinds */
	const char *dev, *corpus, *regress, *capture, *peer;
	bool keep, dump, verbose, no_odp;
};

static bool all_kinds(const struct rf_opts *o)
{
	int k;

	for (k = 0; k < FZ_NKINDS; k++)
		if (!o->kind[k])
			return false;
	return true;
}

/* 0 = run, 1 = --help printed, -1 = bad usage */
static int parse_opts(int argc, char **argv, struct rf_opts *o)
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
	uint64_t v;
	int c, k;

	*o = (struct rf_opts) { .progress = 10, .dev = "rxe0" };
	for (k = 0; k < FZ_NKINDS; k++)
		o->kind[k] = true;
	while ((c = getopt_long(argc, argv, "hv", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			if (opt_u64(optarg, &o->seed))
				return -1;
			o->have_seed = true;
			break;
		case 't':
			if (opt_u64(optarg, &v) || !v)
				return -1;
			o->tmax = (double)v;
			break;
		case 'n':
			if (opt_u64(optarg, &o->count) || !o->count)
				return -1;
			break;
		case 'b':
			if (opt_u64(optarg, &o->one))
				return -1;
			o->have_one = true;
			break;
		case 'k':
			if (opt_names(optarg, fz_kind_name, FZ_NKINDS, o->kind))
				return -1;
			for (k = 0; k < FZ_NKINDS && !o->kind[k]; k++)
				;
			if (k == FZ_NKINDS)
				return -1;
			break;
		case 'd': o->dev = optarg; break;
		case 'C': o->corpus = optarg; break;
		case 'K': o->keep = true; break;
		case 'p':
			if (opt_u64(optarg, &v))
				return -1;
			o->progress = (double)v;
			break;
		case 'c': o->capture = optarg; break;
		case 'P': o->peer = optarg; break;
		case 'D': o->dump = true; break;
		case 'v': o->verbose = true; break;
		case 'O': o->no_odp = true; break;
		case 'R': o->regress = optarg; break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return -1;
		}
	}
	if (optind != argc || (o->capture && !o->peer))
		return -1;
	return 0;
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

static void report(const struct rf_opts *o, uint64_t seed, uint64_t b, const char *kind,
		   const char *what)
{
	const char *corpus = o->corpus, *dev = o->dev;
	char repro[256], path[4096];
	FILE *f;

	snprintf(repro, sizeof(repro), "roce-fuzz --seed %" PRIu64 " --batch %" PRIu64 "%s%s%s%s",
		 seed, b, strcmp(dev, "rxe0") ? " --dev " : "", strcmp(dev, "rxe0") ? dev : "",
		 all_kinds(o) ? "" : " --kinds ", all_kinds(o) ? "" : kind);
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
	static struct fz_world w;
	struct fz_stats st = { { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	uint64_t seed, b, first, nfind = 0, ran = 0;
	double t0, last;
	struct rf_opts o;
	struct rng r;
	int c;

	c = parse_opts(argc, argv, &o);
	if (c) {
		if (c < 0)
			usage(stderr);
		return c < 0 ? 2 : 0;
	}
	if (o.capture)
		return fz_capture(o.dev, o.capture, o.peer, o.dump);
	seed = o.seed;
	if (!o.have_seed) {
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
		seed %= 1000000007ull;
	}
	if (!o.tmax && !o.count && !o.have_one)
		o.tmax = 30;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("[roce-fuzz] seed %" PRIu64 " on %s (reproduce this run: roce-fuzz --seed %" PRIu64 "%s)\n",
	       seed, o.dev, seed, o.have_one ? "" : " with the same --time/--count");
	if (fz_world_init(&w, o.dev, seed, o.no_odp)) {
		fprintf(stderr, "roce-fuzz: setup: %s\n", w.err);
		fz_world_fini(&w);
		return 2;
	}
	w.verbose = o.verbose;
	if (fz_calibrate(&w)) {
		fprintf(stderr, "roce-fuzz: setup: %s\n", w.err);
		fz_world_fini(&w);
		return 2;
	}
	printf("[roce-fuzz] crafted packets reach rxe: a computed ICRC is accepted, a wrong one dropped\n");
	if (o.regress) {
		c = fz_regress(&w, o.regress);
		fz_world_fini(&w);
		return c;
	}
	t0 = last = now_s();
	first = o.have_one ? o.one : 0;
	for (b = first;; b++) {
		double t = now_s() - t0;

		if (o.have_one ? b > o.one : ((o.count && b >= o.count) || (o.tmax && t >= o.tmax)))
			break;
		ran++;
		if (fz_batch(&w, seed, b, o.kind, &st)) {
			nfind++;
			report(&o, seed, b, fz_kind_name[fz_batch_kind(seed, b, o.kind)], w.finding);
			if (!o.keep)
				break;
		}
		if (o.progress > 0 && now_s() - last >= o.progress) {
			last = now_s();
			progress(&st, last - t0, b + 1);
		}
	}
	if (!nfind || o.keep) {
		rng_seed(&r, seed, 0);
		if (fz_check_kmsg(&w) || fz_final_check(&w, &r) || fz_check_memory(&w) ||
		    fz_check_kmsg(&w)) {
			nfind++;
			report(&o, seed, b, "final", w.finding);
		}
	}
	progress(&st, now_s() - t0, ran);
	printf("[roce-fuzz] seed %" PRIu64 ": %" PRIu64 " batches in %.1f s, %" PRIu64 " finding(s)%s\n",
	       seed, ran, now_s() - t0, nfind,
	       nfind ? "" : "; the device passed verified traffic at the end");
	fz_world_fini(&w);
	return nfind ? 1 : 0;
}
