// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Version stamp of the rxe-odp build, so that modinfo and
 * /sys/module/rdma_rxe/version tell this module from the distribution's.
 */

#include <linux/module.h>

#include "rxe_odp_version.h"

MODULE_VERSION(RXE_ODP_VERSION);
