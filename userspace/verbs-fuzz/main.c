/* verbs-fuzz: random work requests on rxe, checked against a model of what
 * they may do, while other threads change their memory, MRs and QPs. */
#include "opts.h"
#include "vf.h"

#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern volatile sig_atomic_t vf_in_poison;
void chaos_reap_all(void);
const char *chaos_kind_name(int k);

static const struct {
	const char *name;
	unsigned int bit;
	const char *what;
} classes[] = {
	{ "rc", C_RC, "RC QP pairs: every RC opcode" },
	{ "ud", C_UD, "UD QPs: SEND, SEND with immediate, and opcodes UD lacks" },
	{ "srq", C_SRQ, "responders receiving from a shared receive queue" },
	{ "ring", C_RING, "WQEs written into the send ring (FLUSH, the ATOMIC WRITE and more)" },
	{ "mem", C_MEM, "munmap, mmap over, mprotect, MADV_DONTNEED, MADV_PAGEOUT" },
	{ "poison", C_POISON, "MADV_HWPOISON (root, CONFIG_MEMORY_FAILURE) of pages of pinned MRs" },
	{ "poison-odp", C_POISON_ODP, "MADV_HWPOISON of pages under ODP MRs (accesses must fail)" },
	{ "fork", C_FORK, "fork; the child scribbles on its copy of the buffers" },
	{ "mr", C_MR, "dereg/register again, rereg (libibverbs and the kernel's), odd registrations" },
	{ "qp", C_QP, "destroy QPs, move QPs to ERR" },
	{ "inject", C_INJECT, "odp_fail_faults: transient ODP fault failures" },
	{ "badop", C_BADOP, "opcodes a user QP must not run (REG_MR, unknown, huge)" },
	{ "huge", C_HUGE, "hugetlbfs regions with ODP + IBV_ACCESS_HUGETLB" },
	{ "huge-small", C_HUGE_SMALL, "ODP + IBV_ACCESS_HUGETLB on 4 KiB pages (accesses must fail)" },
	{ "hostile", C_HOSTILE, "send queue WQEs whose fields disagree (inline offsets, lengths, "
				"SGE cursors, states): only kernel reports and canaries count" },
	{ "hostile-race", C_HOSTILE_RACE, "hostile WQEs whose cursors, lengths, opcode and state "
					  "are rewritten while rxe works on them (with hostile)" },
};

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f,
"usage: verbs-fuzz [options]\n"
"\n"
"Fuzzes an RDMA device (Soft-RoCE with rxe-odp's ODP) through libibverbs in one\n"
"process: RC QP pairs and UD QPs on loopback, an SRQ, MRs that are ODP or pinned,\n"
"with an iova other than their address, on hugetlbfs when hugepages exist, with\n"
"random work requests of every opcode rxe runs (RDMA WRITE/READ, SEND, with\n"
"immediate and invalidate, atomics, ATOMIC WRITE through ibv_qp_ex, FLUSH written\n"
"into the send ring since librxe 44 cannot post it), random SGE lists, keys that\n"
"are valid, stale, of a deregistered MR or of another PD, addresses and lengths\n"
"at and across every boundary and past 2^64.  Meanwhile another thread unmaps,\n"
"maps over, mprotects, madvises (DONTNEED, PAGEOUT, HWPOISON) the buffers,\n"
"forks, deregisters and registers again, rereg's, destroys QPs or moves them to\n"
"ERR and injects transient ODP fault failures.\n"
"\n"
"What is checked:\n"
"  - every completion status against a model of rxe (model.h) evaluated in every\n"
"    state the MRs and memory passed through while the WR was in flight: exact\n"
"    when nothing raced it; the union over those states when something did;\n"
"    WR_FLUSH_ERR only after an error on the QP, RETRY_EXC only when the\n"
"    responder went away, RNR_RETRY_EXC only when no receive WQE could be there;\n"
"  - the data: WRITE targets, READ results, SEND payloads, atomic results and\n"
"    targets, byte for byte against a shadow of the memory, when nothing raced;\n"
"  - canaries: the guard pages around every region and every byte outside its MR\n"
"    window keep their pattern forever;\n"
"  - no lost completion: every signaled WR (every WR, after an error) completes,\n"
"    in order, within --hang seconds;\n"
"  - the kernel log (/dev/kmsg): no WARNING, BUG, Oops, lockdep, KASAN, UBSAN...\n"
"\n"
"A seed fixes every choice: WR n and chaos event n draw their numbers from the\n"
"seed and n alone.  The interleaving of the threads and the device's timing are\n"
"not reproduced; --serial makes the chaos run in the traffic thread for a\n"
"replay that repeats the order of operations.\n"
"\n"
"options:\n"
"  -s, --seed N       the run's seed (default: from the clock, printed)\n"
"  -t, --time SEC     stop after SEC seconds of fuzzing (default 60; 0 = no limit)\n"
"  -n, --ops N        stop after N work requests (default 0 = no limit)\n"
"  -c, --classes LIST what to fuzz: comma-separated names, 'all' (default), or\n"
"                     'all,-name' to leave one out; or a hex mask 0x...\n"
"      --corpus DIR   on a finding, write DIR/verbs-fuzz-<seed>.txt (reproducer)\n"
"      --serial       chaos in the traffic thread (reproducible order)\n"
"      --hang SEC     a WR without completion this long is a hang (default 120)\n"
"  -d, --dev NAME     RDMA device (default rxe0)\n"
"  -g, --gid INDEX    GID index (default $RXE_GID, else the IPv4-mapped GID)\n"
"      --progress SEC seconds between progress lines (default 10; 0 = none)\n"
"      --regress [NAME] run the reproducers of bugs this fuzzer found, then exit\n"
"      --list-regress list them\n"
"  -v, --verbose      more detail (twice: every WR and chaos event)\n"
"  -h, --help         this text\n"
"\n"
"classes:\n");
	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		fprintf(f, "  %-8s %s\n", classes[i].name, classes[i].what);
	fprintf(f,
"\n"
"Exit status: 0 clean, 1 a finding (the last lines say what, and give a one-line\n"
"reproducer), 2 usage or setup error (e.g. no device, no ODP).\n");
}

/* ------------------------------------------------------------------ clock */

/* The fuzz clock: seconds the guest was alive.  A starved TCG guest's
 * clock can jump by minutes at once; each 10 ms tick counts at most 100 ms,
 * so a stall of the whole guest does not look like a hang. */
static _Atomic uint64_t tick_us;

double vf_now(void)
{
	return tick_us / 1e6;
}

/* Start a thread of the run: 0, or -1 after saying why */
static int spawn(pthread_t *t, void *(*fn)(void *), const char *what)
{
	int err = pthread_create(t, NULL, fn, NULL);

	if (err)
		fprintf(stderr, "verbs-fuzz: setup: cannot start the %s thread: %s\n", what,
			strerror(err));
	return err ? -1 : 0;
}

static void *ticker(void *arg)
{
	struct timespec a, b;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (;;) {
		uint64_t d;

		usleep(10000);
		clock_gettime(CLOCK_MONOTONIC, &b);
		d = (uint64_t)((b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000);
		tick_us += d > 100000 ? 100000 : d;
		a = b;
	}
	return NULL;
}

/* ------------------------------------------------------------- reporting */

void vf_log(const char *fmt, ...)
{
	va_list ap;

	fprintf(stdout, "[%7.1f] ", vf_now());
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

void vf_finding(const char *fmt, ...)
{
	va_list ap;

	if (W.finding)
		return;		/* the first one is the one to chase */
	W.finding = 1;
	W.stop = 1;
	va_start(ap, fmt);
	vsnprintf(W.finding_text, sizeof(W.finding_text), fmt, ap);
	va_end(ap);
	printf("[%7.1f] FINDING: %s\n", vf_now(), W.finding_text);
	fflush(stdout);
}

/* Kernel trouble in the log, as tests/vm/run looks for it on the console */
static const char *const kbad[] = {
	"WARNING:", "BUG:", "Oops", "kernel BUG", "general protection fault", "Kernel panic",
	"possible circular locking", "possible recursive locking", "inconsistent lock state",
	"lockdep", "blocked for more than", "Call Trace:", "UBSAN:", "KASAN:", "refcount_t:",
	"list_add corruption", "list_del corruption", "soft lockup", "hard LOCKUP",
	"self-detected stall",
};

void vf_kmsg_check(void)
{
	char buf[8192];
	ssize_t n;
	unsigned int i;

	if (W.kmsg_fd < 0)
		return;
	for (;;) {
		n = read(W.kmsg_fd, buf, sizeof(buf) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: read on */
		if (n <= 0)
			return;
		buf[n] = 0;
		for (i = 0; i < sizeof(kbad) / sizeof(kbad[0]); i++) {
			char *m = strchr(buf, ';');

			if (m && strstr(m, kbad[i])) {
				char *nl = strchr(m, '\n');

				if (nl)
					*nl = 0;
				vf_finding("kernel log: %s", m + 1);
				return;
			}
		}
	}
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	static const char msg[] = "verbs-fuzz: SIGBUS outside MADV_HWPOISON (touched a poisoned "
				  "page?)\n";

	(void)sig;
	(void)uc;
	(void)si;
	if (vf_in_poison)
		return;		/* the poisoning itself: expected */
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(2);
}

/* A crash of the fuzzer itself: say where (the fault address and the
 * call chain, for addr2line), then die of the signal as before. */
static void on_crash(int sig, siginfo_t *si, void *uc)
{
	void *bt[32];
	char line[96];
	int n, len;

	(void)uc;
	len = snprintf(line, sizeof(line), "verbs-fuzz: signal %d (code %d) at address %p\n",
		       sig, si->si_code, si->si_addr);
	if (len > 0 && write(2, line, (size_t)len) < 0)
		_exit(3);
	n = backtrace(bt, 32);
	backtrace_symbols_fd(bt, n, 2);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* ---------------------------------------------------------------- options */

static int parse_classes(const char *s, unsigned int *out)
{
	char buf[256], *t, *save = NULL;
	unsigned int m = 0, i;

	if (!strncmp(s, "0x", 2)) {
		*out = (unsigned int)strtoul(s, NULL, 16) & C_ALL;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int neg = *t == '-';

		if (neg)
			t++;
		if (!strcmp(t, "all")) {
			m = neg ? 0 : C_ALL;
			continue;
		}
		for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
			if (!strcmp(t, classes[i].name))
				break;
		if (i == sizeof(classes) / sizeof(classes[0]))
			return -1;
		if (neg)
			m &= ~classes[i].bit;
		else
			m |= classes[i].bit;
	}
	*out = m;
	return 0;
}

static void reproducer(char *buf, size_t len)
{
	snprintf(buf, len, "verbs-fuzz --seed 0x%llx --ops %llu --classes 0x%x%s%s%s",
		 (unsigned long long)W.o.seed, (unsigned long long)W.ops, W.o.classes,
		 W.o.serial ? " --serial" : "", strcmp(W.o.dev, "rxe0") ? " --dev " : "",
		 strcmp(W.o.dev, "rxe0") ? W.o.dev : "");
}

static void corpus_write(const char *repro)
{
	char path[4096];
	FILE *f;

	if (!W.o.corpus)
		return;
	mkdir(W.o.corpus, 0755);
	snprintf(path, sizeof(path), "%s/verbs-fuzz-0x%llx.txt", W.o.corpus,
		 (unsigned long long)W.o.seed);
	f = fopen(path, "w");
	if (!f) {
		printf("verbs-fuzz: cannot write %s: %s\n", path, strerror(errno));
		return;
	}
	fprintf(f, "# verbs-fuzz finding\nreproducer: %s\nfinding: %s\n", repro, W.finding_text);
	fclose(f);
	printf("verbs-fuzz: reproducer kept in %s\n", path);
}

static void progress(void)
{
	int i, n = 0;
	char kinds[512] = "";

	for (i = 0; i < 32 && chaos_kind_name(i); i++)
		if (W.st.chaos_kind[i])
			n += snprintf(kinds + n, sizeof(kinds) - (size_t)n, " %s:%llu",
				      chaos_kind_name(i), (unsigned long long)W.st.chaos_kind[i]);
	vf_log("ops %llu posted %llu (refused %llu, ring %llu, qp_ex %llu) cqe %llu (errors %llu) "
	       "recv %llu ud-delivered %llu data-checked %llu (%llu bytes) raced %llu "
	       "self-overlap %llu pairs %llu regions %llu regs %llu canary-checks %llu chaos %llu:%s",
	       (unsigned long long)W.ops, (unsigned long long)W.st.posted,
	       (unsigned long long)W.st.post_err, (unsigned long long)W.st.ring_posts,
	       (unsigned long long)W.st.qpex_posts, (unsigned long long)W.st.cqe,
	       (unsigned long long)W.st.cqe_err, (unsigned long long)W.st.recv_cqe,
	       (unsigned long long)W.st.ud_delivered, (unsigned long long)W.st.data_checked,
	       (unsigned long long)W.st.data_bytes, (unsigned long long)W.st.raced,
	       (unsigned long long)W.st.self_overlap, (unsigned long long)W.st.pairs_made,
	       (unsigned long long)W.st.regions_made,
	       (unsigned long long)W.st.regs, (unsigned long long)W.st.canary_checks,
	       (unsigned long long)W.st.chaos, kinds);
}

/* ----------------------------------------------------------------- traffic */

static _Atomic uint64_t heartbeat;

static void *traffic_thread(void *arg)
{
	struct rng r;
	double last_check = 0;
	uint64_t step = 0;

	(void)arg;
	pthread_mutex_lock(&W.lock);
	while (!W.stop) {
		/* step n of a run draws its numbers from (seed, n) alone */
		rng_seed(&r, W.o.seed, step++);
		traffic_step(&r);
		if (W.o.serial && rng_pct(&r, 30)) {
			rng_seed(&r, W.o.seed, (1ull << 40) + W.chaos_n++);
			chaos_step(&r);
		}
		if (vf_now() - last_check > 1.0) {
			last_check = vf_now();
			traffic_hang_check();
			if (!W.finding && (step & 7) == 0)
				canary_check_all();
			vf_kmsg_check();
		}
		if ((W.o.time && vf_now() >= W.o.time) || (W.o.ops && W.ops >= W.o.ops))
			W.stop = 1;
		heartbeat++;
		pthread_mutex_unlock(&W.lock);
		usleep(200);
		pthread_mutex_lock(&W.lock);
	}
	pthread_mutex_unlock(&W.lock);
	return NULL;
}

/* ------------------------------------------------------------------- main */

/* The command line, parsed once into *o: 0 = run, 1 = done (--help,
 * --list-regress), -1 = bad usage (message printed). */
static int parse_opts(int argc, char **argv, struct vf_opts *o)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "time", required_argument, NULL, 't' },
		{ "ops", required_argument, NULL, 'n' },
		{ "classes", required_argument, NULL, 'c' },
		{ "corpus", required_argument, NULL, 'C' },
		{ "serial", no_argument, NULL, 'S' },
		{ "hang", required_argument, NULL, 'H' },
		{ "dev", required_argument, NULL, 'd' },
		{ "gid", required_argument, NULL, 'g' },
		{ "progress", required_argument, NULL, 'P' },
		{ "regress", optional_argument, NULL, 'R' },
		{ "list-regress", no_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct timespec ts;
	long v;
	int c;

	clock_gettime(CLOCK_REALTIME, &ts);
	*o = (struct vf_opts){ .seed = (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec,
			       .time = 60, .classes = C_ALL, .dev = "rxe0",
			       .gid = opt_gid_default(-1), .hang = 120, .progress = 10 };
	while ((c = getopt_long(argc, argv, "s:t:n:c:d:g:vh", lo, NULL)) != -1) {
		int bad = 0;

		switch (c) {
		case 's': bad = opt_u64(optarg, &o->seed); break;
		case 't': bad = opt_double(optarg, -1, 1e9, &o->time) || o->time < 0; break;
		case 'n': bad = opt_u64(optarg, &o->ops); break;
		case 'c':
			if (parse_classes(optarg, &o->classes)) {
				fprintf(stderr, "verbs-fuzz: unknown class in '%s' (see --help)\n", optarg);
				return -1;
			}
			break;
		case 'C': o->corpus = optarg; break;
		case 'S': o->serial = 1; break;
		case 'H': bad = opt_double(optarg, 0, 1e6, &o->hang); break;
		case 'd': o->dev = optarg; break;
		case 'g':
			bad = opt_long(optarg, 0, 255, &v);
			o->gid = bad ? o->gid : (int)v;
			break;
		case 'P':
			bad = opt_long(optarg, 0, 86400, &v);
			o->progress = bad ? o->progress : (int)v;
			break;
		case 'R':
			o->regress = true;
			o->regress_name = optarg;
			break;
		case 'L': regress_list(); return 1;
		case 'v': o->verbose++; break;
		case 'h': usage(stdout); return 1;
		default: usage(stderr); return -1;
		}
		if (bad) {
			fprintf(stderr, "verbs-fuzz: bad value '%s' for option -%c (see --help)\n",
				optarg, c);
			return -1;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
	pthread_t tt, ct, tk;
	char err[512], repro[512];
	uint64_t hb = 0;
	double hb_at = 0, last_progress = 0;
	int i;

	i = parse_opts(argc, argv, &W.o);
	if (i)
		return i > 0 ? 0 : 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGBUS, &sa, NULL);
	{
		struct sigaction sc = { .sa_sigaction = on_crash,
					.sa_flags = SA_SIGINFO | SA_RESETHAND };

		sigaction(SIGSEGV, &sc, NULL);
		sigaction(SIGILL, &sc, NULL);
		sigaction(SIGFPE, &sc, NULL);
	}
	signal(SIGPIPE, SIG_IGN);
	if (W.o.regress)
		return regress_run(W.o.regress_name);

	W.kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (W.kmsg_fd >= 0)
		lseek(W.kmsg_fd, 0, SEEK_END);
	if (world_init(err, sizeof(err))) {
		fprintf(stderr, "verbs-fuzz: setup: %s\n", err);
		return 2;
	}
	/* without the ticker the clock stands still: no time limit, no hang check */
	if (spawn(&tk, ticker, "ticker"))
		return 2;
	printf("verbs-fuzz: seed 0x%llx, %s%.0f s, %s%llu ops, classes 0x%x, device %s, "
	       "hugepages %s, qp_ex %s, poison %s, inject %s, kmsg %s\n",
	       (unsigned long long)W.o.seed, W.o.time ? "" : "no limit/", W.o.time,
	       W.o.ops ? "" : "no limit/", (unsigned long long)W.o.ops, W.o.classes, W.o.dev,
	       W.have_huge ? "yes" : "no", W.have_qpex ? "yes" : "no", W.have_poison ? "yes" : "no",
	       W.have_inject ? "yes" : "no", W.kmsg_fd >= 0 ? "watched" : "not readable");
	pthread_mutex_lock(&W.lock);
	for (i = 0; i < VF_NREG; i++) {
		struct rng r;

		rng_seed(&r, W.o.seed, (1ull << 50) + (uint64_t)i);
		if (region_make(i, &r)) {
			fprintf(stderr, "verbs-fuzz: setup: region %d: %s\n", i, strerror(errno));
			return 2;
		}
		mr_register(i, &r);
	}
	pthread_mutex_unlock(&W.lock);
	if (W.finding)
		goto end;

	if (spawn(&tt, traffic_thread, "traffic"))
		return 2;
	if (!W.o.serial && spawn(&ct, chaos_thread, "chaos")) {
		W.stop = 1;
		pthread_join(tt, NULL);
		return 2;
	}
	while (!W.stop) {
		usleep(100000);
		if (W.o.progress && vf_now() - last_progress >= W.o.progress) {
			last_progress = vf_now();
			pthread_mutex_lock(&W.lock);
			progress();
			pthread_mutex_unlock(&W.lock);
		}
		/* a thread stuck in the kernel (a verb that never returns) */
		if (heartbeat != hb) {
			hb = heartbeat;
			hb_at = vf_now();
		} else if (vf_now() - hb_at > W.o.hang) {
			W.finding = 0;
			vf_finding("hang: the traffic thread made no progress for %.0f s (stuck in a "
				   "verb?)", vf_now() - hb_at);
			reproducer(repro, sizeof(repro));
			printf("verbs-fuzz: FAILED (seed 0x%llx): %s\nreproduce: %s\n",
			       (unsigned long long)W.o.seed, W.finding_text, repro);
			corpus_write(repro);
			fflush(stdout);
			if (W.have_inject)
				chaos_inject_clear();
			_exit(1);
		}
	}
	pthread_join(tt, NULL);
	if (!W.o.serial)
		pthread_join(ct, NULL);

	pthread_mutex_lock(&W.lock);
	if (!W.finding) {
		/* every WR must end; then the canaries and the kernel log */
		traffic_drain(W.o.hang);
		traffic_poll();
		chaos_reap_all();
		if (!W.finding)
			canary_check_all();
		vf_kmsg_check();
	}
	progress();
end:
	if (W.have_inject)
		chaos_inject_clear();	/* none left for the next program */
	reproducer(repro, sizeof(repro));
	if (!W.finding) {
		world_fini();
		usleep(200000);
		vf_kmsg_check();
	}
	pthread_mutex_unlock(&W.lock);
	if (W.finding) {
		printf("verbs-fuzz: FAILED (seed 0x%llx): %s\nreproduce: %s\n",
		       (unsigned long long)W.o.seed, W.finding_text, repro);
		corpus_write(repro);
		return 1;
	}
	printf("verbs-fuzz: clean: seed 0x%llx, %.0f s, %llu ops, %llu completions checked, "
	       "%llu data checks, %llu chaos events\n", (unsigned long long)W.o.seed, vf_now(),
	       (unsigned long long)W.ops, (unsigned long long)W.st.cqe,
	       (unsigned long long)W.st.data_checked, (unsigned long long)W.st.chaos);
	return 0;
}
