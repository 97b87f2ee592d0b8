/*
 * rng: the seeded pseudo-random generator of the fuzzers (xoshiro256**,
 * its state filled by splitmix64).  A run's seed, and a stream number for
 * each independent sequence of choices (a thread, a batch), determine
 * every number drawn, on every machine.  Header only.
 */
#ifndef RXE_ODP_RNG_H
#define RXE_ODP_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

/* splitmix64: one step of the generator that seeds the state */
static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The state for (seed, stream): different streams are independent. */
static inline void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ull);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static inline uint64_t rng_rotl(uint64_t v, int k)
{
	return (v << k) | (v >> (64 - k));
}

/* The next 64 random bits. */
static inline uint64_t rng_u64(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return out;
}

/* Uniform in [0, n) for n > 0 (n == 0 gives 0).  The modulo bias is below
 * 2^-32 for the n a fuzzer uses, which does not matter for choices. */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	return n ? rng_u64(r) % n : 0;
}

/* Uniform in [lo, hi], lo <= hi. */
static inline uint64_t rng_range(struct rng *r, uint64_t lo, uint64_t hi)
{
	return lo + rng_below(r, hi - lo + 1);
}

/* True with probability pct/100. */
static inline int rng_pct(struct rng *r, unsigned int pct)
{
	return rng_below(r, 100) < pct;
}

/* An index drawn with the given weights (n entries, not all 0): i with
 * probability w[i] / sum(w). */
static inline unsigned int rng_pick(struct rng *r, const unsigned int *w, unsigned int n)
{
	uint64_t sum = 0, x;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += w[i];
	x = rng_below(r, sum);
	for (i = 0; i + 1 < n; i++) {
		if (x < w[i])
			return i;
		x -= w[i];
	}
	return n - 1;
}

#endif
