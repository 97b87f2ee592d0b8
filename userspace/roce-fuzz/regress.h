/* --regress NAME|all: the minimal reproducers of found bugs (regress.c). */
#ifndef ROCE_FUZZ_REGRESS_H
#define ROCE_FUZZ_REGRESS_H

#include "world.h"

/* 0 all passed, 1 one failed (printed), 2 no such case. */
int fz_regress(struct fz_world *w, const char *which);

#endif
