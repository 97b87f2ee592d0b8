// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "opts.h"

const char *const rv_op_names[RV_NOPS] = { "write", "read", "send", "atomic" };
const char *const rv_kind_names[RV_NKINDS] = {
	"pageout", "dontneed", "remap", "mprotect", "fork", "thp", "compact", "cgroup",
};

void rv_config_defaults(struct rv_config *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = RV_LOOPBACK;
	c->addr[0] = 0;	/* loopback: found from the RDMA devices' GIDs */
	c->port = 18720;
	c->qps = 4;
	c->window = 8;
	c->block = 64 * 1024;
	c->target = 4 << 20;
	for (unsigned i = 0; i < RV_NOPS; i++)
		c->op[i] = true;
	c->mr = RV_MR_ODP;
	for (unsigned i = 0; i < RV_NKINDS; i++)
		c->kind[i] = true;
	c->interval_ms = 20;
	c->duration = 10;
	c->progress = 1;
	c->stall = 60;
	c->ack_timeout = -1;
	c->seed = 1;
}

void rv_usage(FILE *f, const char *prog)
{
	fprintf(f,
"usage: %s [OPTIONS]                 (loopback: server and client in this process)\n"
"       %s --server [ADDR] [OPTIONS] (wait for one client)\n"
"       %s --client ADDR [OPTIONS]   (connect to a server)\n"
"\n"
"Drives RC traffic (RDMA WRITE, RDMA READ, SEND/RECV, atomics) over several QPs\n"
"while the kernel takes the buffers' memory away (swap-out, page drops, remaps,\n"
"write-protection, fork/COW, huge-page collapse/split, compaction, a cgroup\n"
"memory limit), and verifies every byte.  Memory regions are On-Demand-Paging\n"
"(unpinned) by default; --pinned shows what classic pinned MRs do instead.\n"
"\n"
"Each transaction n on a QP: the client fills a block with a pattern made from\n"
"(buffer, offset, n), RDMA-WRITEs it into the server's target slot n mod S,\n"
"READs it back and checks every byte, does a FETCH_ADD or CMP_SWAP on a counter\n"
"and checks the arithmetic, then SENDs a patterned message; the server checks\n"
"the written slot and the message with the CPU and SENDs back a patterned\n"
"acknowledgement that the client checks.  A slot is never reclaimed destructively\n"
"(dropped, remapped) while a transaction owns it, so any mismatch means the\n"
"NIC's data really went missing or landed where the process cannot see it.\n"
"\n"
"Connection:\n"
"  --server [ADDR]      be the server; listen on ADDR (default 0.0.0.0)\n"
"  --client ADDR        be the client; connect to ADDR\n"
"  --addr ADDR          address for the loopback run (default: the first\n"
"                       IPv4 address of an RDMA device, from its GID table;\n"
"                       127.0.0.1 cannot work: rdma_cm binds loopback addresses\n"
"                       to no netdev, and an rxe on 'lo' is not Ethernet to it)\n"
"  -p, --port N         rdma_cm port (default 18720)\n"
"Traffic:\n"
"  -q, --qps N          RC connections (default 4)\n"
"  -w, --window N       transactions in flight per QP (default 8)\n"
"  -b, --block SIZE     block size, multiple of 4K (default 64K)\n"
"  -t, --target SIZE    server write-target buffer per QP (default 4M; it holds\n"
"                       at least 2*window blocks)\n"
"  --ops LIST           comma list of write,read,send,atomic (default all; the\n"
"                       SEND/RECV handshake always runs, 'send' adds payload;\n"
"                       'read' needs 'write')\n"
"  -d, --duration SEC   seconds of traffic (default 10)\n"
"  --min-events N       after --duration, go on until every selected reclaim kind\n"
"                       has fired N times with transfers in flight on the MR it\n"
"                       hit (cgroup: until the NIC came to N slots it had used\n"
"                       that the limit had swapped out, when that is counted),\n"
"                       so a slow host still exercises each kind (default 0:\n"
"                       stop at --duration)\n"
"  --max-duration SEC   the bound of --min-events (default 10 x --duration); the\n"
"                       report then shows which kinds fell short\n"
"  --ack-timeout N      the QPs' Local ACK Timeout, 4.096 us x 2^N (default\n"
"                       rdma_cm's); this side's requester resends after it\n"
"Memory:\n"
"  --odp                On-Demand-Paging MRs (default)\n"
"  --pinned             pinned MRs everywhere\n"
"  --mix                alternate ODP and pinned MRs buffer by buffer\n"
"  --implicit           no MR per ODP buffer: each side registers one implicit\n"
"                       ODP MR, ibv_reg_mr(pd, NULL, SIZE_MAX, ON_DEMAND | local\n"
"                       and remote write, remote read and atomic), and every lkey\n"
"                       and rkey of its ODP buffers is that MR's (the buffers\n"
"                       are mmap'd as usual); the device must advertise\n"
"                       IBV_ODP_SUPPORT_IMPLICIT.  With --mix the pinned buffers\n"
"                       keep MRs of their own; not with --pinned\n"
"Reclaim (all by default):\n"
"  -r, --reclaim LIST   comma list, or 'all' / 'none':\n"
"     pageout   madvise(MADV_PAGEOUT) on live ranges (swaps out; needs swap)\n"
"     dontneed  madvise(MADV_DONTNEED) on idle slots (their pages are replaced\n"
"               by zero pages)\n"
"     remap     munmap + mmap(MAP_FIXED_NOREPLACE) of idle slots at the same address\n"
"     mprotect  mprotect(PROT_READ) and back on buffers the NIC only reads\n"
"     fork      fork(); the child writes its own marker into every page (COW;\n"
"               with 'cgroup', into at most a quarter of memory.max per fork)\n"
"     thp       MADV_HUGEPAGE + MADV_COLLAPSE, then MADV_NOHUGEPAGE + split\n"
"               (debugfs split_huge_pages) on 2 MiB chunks\n"
"     compact   write 1 to /proc/sys/vm/compact_memory (root), and with two or\n"
"               more NUMA nodes move_pages(2) live ranges to the other node\n"
"     cgroup    run inside a new cgroup v2 whose memory.max is below the\n"
"               working set (root; needs swap); counts the slots the NIC had\n"
"               used that were swapped out when it came to use them again\n"
"               (not with pageout, dontneed or remap, which empty slots too)\n"
"  --no-reclaim         same as --reclaim none\n"
"  -i, --interval MS    pause between reclaim rounds (default 20); the heavier\n"
"               kinds fire every 2 (mprotect, compact), 3 (thp) or 25 (fork)\n"
"               intervals of wall-clock time\n"
"  --cgroup-max SIZE    memory.max for 'cgroup' (default: half the working set)\n"
"Output:\n"
"  --json               print the final report as JSON on stdout\n"
"  --json-file FILE     print the text report and also write the JSON to FILE\n"
"  --progress SEC       progress line to stderr every SEC seconds (default 1;\n"
"                       0 = none; only for runs longer than 3 s)\n"
"  --stall SEC          give up when nothing completes for SEC seconds, or when\n"
"                       connecting all QPs takes longer (default 60)\n"
"  --seed N             seed for the reclaim thread's choices (default 1)\n"
"  -v, --verbose        print every mismatch\n"
"  -h, --help           this text\n"
"\n"
"Exit status: 0 = every byte was where the memory model says it must be\n"
"(ODP: all data verified; pinned: mismatches only of the 'stale' kind, which\n"
"the report counts and explains), 1 = corruption, error completions or a stall,\n"
"2 = bad usage or setup failure (e.g. the device has no ODP: try --pinned).\n"
"\n"
"Examples:\n"
"  %s -d 20                      all reclaim kinds, ODP, loopback\n"
"  %s --implicit -r pageout       swap-out, every key from one implicit MR per side\n"
"  %s --pinned -r dontneed,remap  show pinned MRs going stale\n"
"  %s --server & %s --client 192.0.2.1 -r pageout\n",
		prog, prog, prog, prog, prog, prog, prog, prog);
}

uint32_t rv_ops_to_wire(const struct rv_config *c)
{
	uint32_t bits = 0;
	unsigned i;

	for (i = 0; i < RV_NOPS; i++)
		if (c->op[i])
			bits |= 1u << i;
	return bits;
}

void rv_ops_from_wire(struct rv_config *c, uint32_t bits)
{
	unsigned i;

	for (i = 0; i < RV_NOPS; i++)
		c->op[i] = bits & (1u << i);
}

bool rv_any_kind_but(const struct rv_config *c, enum rv_kind except)
{
	unsigned i;

	for (i = 0; i < RV_NKINDS; i++)
		if (i != except && c->kind[i])
			return true;
	return false;
}

bool rv_cgroup_counts_slots(const struct rv_config *c)
{
	return c->kind[RV_EV_CGROUP] && !c->kind[RV_EV_PAGEOUT] && !c->kind[RV_EV_DONTNEED] &&
	       !c->kind[RV_EV_REMAP];
}

/* a size of at most 'max' bytes */
static int parse_size(const char *s, uint64_t max, size_t *out)
{
	uint64_t v;

	if (opt_size(s, &v) || v > max)
		return -1;
	*out = (size_t)v;
	return 0;
}

static int failf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

enum {
	O_SERVER = 256, O_CLIENT, O_ADDR, O_OPS, O_ODP, O_PINNED, O_MIX, O_NORECLAIM,
	O_CGMAX, O_JSON, O_JSONFILE, O_PROGRESS, O_STALL, O_ACKTO, O_SEED,
	O_MINEV, O_MAXDUR, O_IMPLICIT,
};

int rv_parse_args(struct rv_config *c, int argc, char **argv, char *err, size_t errlen)
{
	static const struct option lo[] = {
		{ "server", optional_argument, NULL, O_SERVER },
		{ "client", required_argument, NULL, O_CLIENT },
		{ "addr", required_argument, NULL, O_ADDR },
		{ "port", required_argument, NULL, 'p' },
		{ "qps", required_argument, NULL, 'q' },
		{ "window", required_argument, NULL, 'w' },
		{ "block", required_argument, NULL, 'b' },
		{ "target", required_argument, NULL, 't' },
		{ "ops", required_argument, NULL, O_OPS },
		{ "duration", required_argument, NULL, 'd' },
		{ "min-events", required_argument, NULL, O_MINEV },
		{ "max-duration", required_argument, NULL, O_MAXDUR },
		{ "odp", no_argument, NULL, O_ODP },
		{ "pinned", no_argument, NULL, O_PINNED },
		{ "mix", no_argument, NULL, O_MIX },
		{ "implicit", no_argument, NULL, O_IMPLICIT },
		{ "reclaim", required_argument, NULL, 'r' },
		{ "no-reclaim", no_argument, NULL, O_NORECLAIM },
		{ "interval", required_argument, NULL, 'i' },
		{ "cgroup-max", required_argument, NULL, O_CGMAX },
		{ "json", no_argument, NULL, O_JSON },
		{ "json-file", required_argument, NULL, O_JSONFILE },
		{ "progress", required_argument, NULL, O_PROGRESS },
		{ "stall", required_argument, NULL, O_STALL },
		{ "ack-timeout", required_argument, NULL, O_ACKTO },
		{ "seed", required_argument, NULL, O_SEED },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int o;

	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":p:q:w:b:t:d:r:i:vh", lo, NULL)) != -1) {
		switch (o) {
		case O_SERVER:
			c->mode = RV_SERVER;
			/* optional argument: "--server ADDR" as well as "--server=ADDR" */
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			snprintf(c->addr, sizeof(c->addr), "%s", optarg ? optarg : "0.0.0.0");
			break;
		case O_CLIENT:
			c->mode = RV_CLIENT;
			/* fall through */
		case O_ADDR:
			if (strlen(optarg) >= sizeof(c->addr))
				return failf(err, errlen, "address too long: %s", optarg);
			strcpy(c->addr, optarg);
			break;
		case 'p':
			if (opt_uint(optarg, 1, 65535, &c->port))
				return failf(err, errlen, "bad port '%s'", optarg);
			break;
		case 'q':
			if (opt_uint(optarg, 1, 64, &c->qps))
				return failf(err, errlen, "--qps wants 1..64, got '%s'", optarg);
			break;
		case 'w':
			if (opt_uint(optarg, 1, 64, &c->window))
				return failf(err, errlen, "--window wants 1..64, got '%s'", optarg);
			break;
		case 'b':
			if (parse_size(optarg, 16u << 20, &c->block) || c->block % 4096)
				return failf(err, errlen,
					     "--block wants a multiple of 4K up to 16M, got '%s'", optarg);
			break;
		case 't':
			if (parse_size(optarg, 1ull << 32, &c->target))
				return failf(err, errlen, "bad --target '%s'", optarg);
			break;
		case O_OPS:
			if (opt_names(optarg, rv_op_names, RV_NOPS, c->op))
				return failf(err, errlen,
					     "--ops wants a list of write,read,send,atomic, got '%s'", optarg);
			break;
		case 'd':
			if (opt_double(optarg, 0, 86400, &c->duration))
				return failf(err, errlen, "--duration wants seconds > 0, got '%s'", optarg);
			break;
		case O_ODP:
			c->mr = RV_MR_ODP;
			break;
		case O_PINNED:
			c->mr = RV_MR_PINNED;
			break;
		case O_MIX:
			c->mr = RV_MR_MIX;
			break;
		case O_IMPLICIT:
			c->implicit = true;
			break;
		case 'r':
			if (opt_names(optarg, rv_kind_names, RV_NKINDS, c->kind))
				return failf(err, errlen,
					     "--reclaim wants 'all', 'none' or a list of pageout,dontneed,remap,mprotect,fork,thp,compact,cgroup, got '%s'",
					     optarg);
			break;
		case O_NORECLAIM:
			memset(c->kind, 0, sizeof(c->kind));
			break;
		case 'i':
			if (opt_uint(optarg, 1, 60000, &c->interval_ms))
				return failf(err, errlen, "--interval wants 1..60000 ms, got '%s'", optarg);
			break;
		case O_CGMAX:
			if (parse_size(optarg, SIZE_MAX, &c->cgroup_max) || c->cgroup_max < (1u << 20))
				return failf(err, errlen, "--cgroup-max wants a size >= 1M, got '%s'", optarg);
			break;
		case O_JSON:
			c->json = true;
			break;
		case O_JSONFILE:
			if (strlen(optarg) >= sizeof(c->json_file))
				return failf(err, errlen, "--json-file: path too long");
			strcpy(c->json_file, optarg);
			break;
		case O_PROGRESS:
			if (opt_uint(optarg, 0, 3600, &c->progress))
				return failf(err, errlen, "bad --progress '%s'", optarg);
			break;
		case O_MINEV:
			if (opt_uint(optarg, 0, 1000, &c->min_events))
				return failf(err, errlen, "--min-events wants 0..1000, got '%s'", optarg);
			break;
		case O_MAXDUR:
			if (opt_double(optarg, 0, 86400, &c->max_duration))
				return failf(err, errlen, "--max-duration wants seconds > 0, got '%s'",
					     optarg);
			break;
		case O_STALL:
			if (opt_uint(optarg, 1, 3600, &c->stall))
				return failf(err, errlen, "bad --stall '%s'", optarg);
			break;
		case O_ACKTO: {
			unsigned v;

			if (opt_uint(optarg, 0, 31, &v))
				return failf(err, errlen, "bad --ack-timeout '%s' (0..31)", optarg);
			c->ack_timeout = (int)v;
			break;
		}
		case O_SEED:
			if (opt_uint(optarg, 0, ~0u, &c->seed))
				return failf(err, errlen, "bad --seed '%s'", optarg);
			break;
		case 'v':
			c->verbose = true;
			break;
		case 'h':
			return 1;
		case ':':
			return failf(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		default:
			return failf(err, errlen, "unknown option '%s' (try --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return failf(err, errlen, "unexpected argument '%s' (try --help)", argv[optind]);
	if (c->implicit && c->mr == RV_MR_PINNED)
		return failf(err, errlen,
			     "--implicit is an ODP MR; --pinned has none (use --mix or --odp)");
	if (c->op[RV_OP_READ] && !c->op[RV_OP_WRITE])
		return failf(err, errlen, "--ops: 'read' reads back what 'write' wrote; add 'write'");
	if (c->target < 2ull * c->window * c->block)
		c->target = 2ull * c->window * c->block;
	c->target = (c->target + c->block - 1) / c->block * c->block;
	if (c->target / c->block > 65535)
		return failf(err, errlen, "--target holds more than 65535 blocks; use a bigger --block");
	if (!c->max_duration)
		c->max_duration = 10 * c->duration;
	if (c->max_duration < c->duration)
		return failf(err, errlen, "--max-duration is shorter than --duration");
	return 0;
}
