/* One batch of crafted packets and its oracles (fuzz.c). */
#ifndef ROCE_FUZZ_FUZZ_H
#define ROCE_FUZZ_FUZZ_H

#include <stdbool.h>
#include <stdint.h>

#include "world.h"

enum fz_kind { KIND_RESP, KIND_COMP, KIND_UD, KIND_JUNK, FZ_NKINDS };
extern const char *const fz_kind_name[FZ_NKINDS];

struct fz_stats {
	uint64_t batches[FZ_NKINDS];
	uint64_t pkts, accepted, bad_icrc, exposed, legit, ud_delivered, gsi;
	uint64_t comp_cqe, comp_err;
};

/* The kind of batch n of a run with this seed. */
enum fz_kind fz_batch_kind(uint64_t seed, uint64_t n, const bool *kinds);

/* Run batch n: 0 clean, -1 a finding (w->finding). */
int fz_batch(struct fz_world *w, uint64_t seed, uint64_t n, const bool *kinds,
	     struct fz_stats *st);

#endif
