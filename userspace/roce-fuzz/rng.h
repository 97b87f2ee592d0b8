/* A small seeded PRNG (xoshiro256**, seeded by splitmix64): every choice
 * of a run comes from it, so a seed and a batch number reproduce a batch. */
#ifndef ROCE_FUZZ_RNG_H
#define ROCE_FUZZ_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ull);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl64(uint64_t v, int k)
{
	return (v << k) | (v >> (64 - k));
}

static inline uint64_t rng_u64(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return res;
}

/* uniform in [0, n); 0 for n == 0 (an empty range a caller computed) */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	uint64_t v = rng_u64(r);

	return n ? v % n : 0;
}

/* true with probability pct/100 */
static inline int rng_pct(struct rng *r, unsigned int pct)
{
	return rng_below(r, 100) < pct;
}

#endif
