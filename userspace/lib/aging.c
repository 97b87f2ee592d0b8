/* aging: options and set-up of the page-aging tools. */
#include "aging.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "opts.h"
#include "sysfile.h"

void aging_opts_init(struct aging_opts *a, const char *prog, long size_mib,
		     long size_max_mib, int max_modes)
{
	*a = (struct aging_opts) {
		.prog = prog, .dev = "rxe0", .gid = opt_gid_default(1),
		.param = AGING_PARAM, .nmodes = 2, .modes = { false, true },
		.max_modes = max_modes < AGING_MAX_MODES ? max_modes : AGING_MAX_MODES,
		.size = (size_t)size_mib << 20, .size_max_mib = size_max_mib,
	};
}

int aging_parse_modes(const char *arg, bool *modes, int max, int *n)
{
	bool m[AGING_MAX_MODES];
	const char *p = arg;
	int k = 0;

	if (!arg || !*arg || max > AGING_MAX_MODES)
		return -1;
	while (*p) {
		size_t len = strcspn(p, ",");

		if (k == max)
			return -1;
		if (len == 2 && !strncmp(p, "on", 2))
			m[k++] = true;
		else if (len == 3 && !strncmp(p, "off", 3))
			m[k++] = false;
		else
			return -1;
		p += len;
		if (*p == ',' && *++p == 0)
			return -1;
	}
	memcpy(modes, m, (size_t)k * sizeof(*m));
	*n = k;
	return 0;
}

int aging_opt(struct aging_opts *a, int c, const char *arg)
{
	long v;

	switch (c) {
	case 'd':
		a->dev = arg;
		return 1;
	case 'g':
		if (opt_long(arg, 0, 255, &v))
			break;
		a->gid = (int)v;
		return 1;
	case 'c':
		a->cgroup = arg;
		return 1;
	case 'p':
		a->param = arg;
		return 1;
	case 'M':
		if (aging_parse_modes(arg, a->modes, a->max_modes, &a->nmodes))
			break;
		return 1;
	case 's':
		if (opt_long(arg, 1, a->size_max_mib, &v))
			break;
		a->size = (size_t)v << 20;
		return 1;
	case 'R':
		if (opt_long(arg, 1, 1 << 20, &v))
			break;
		a->reclaim = (size_t)v << 20;
		return 1;
	default:
		return 0;
	}
	fprintf(stderr, "%s: bad value '%s' for option -%c (see --help)\n", a->prog, arg, c);
	return -1;
}

int aging_getopt(struct aging_opts *a, int argc, char **argv, const char *optstring,
		 const struct option *lo)
{
	int c, r;

	while ((c = getopt_long(argc, argv, optstring, lo, NULL)) != -1) {
		r = aging_opt(a, c, optarg);
		if (r < 0)
			return -2;
		if (!r)
			return c;
	}
	return -1;
}

int aging_opts_check(const struct aging_opts *a)
{
	if (a->cgroup)
		return 0;
	fprintf(stderr, "%s: --cgroup DIR is required (see --help)\n", a->prog);
	return -1;
}

int aging_join(const struct aging_opts *a)
{
	int err = cgroup_join(a->cgroup);

	if (err)
		fprintf(stderr, "%s: cannot join %s/cgroup.procs: %s\n", a->prog, a->cgroup,
			strerror(-err));
	return err ? -1 : 0;
}

int aging_switch(const struct aging_opts *a, bool on)
{
	int err = sysfile_write(a->param, on ? "Y" : "N");

	if (err)
		fprintf(stderr, "%s: cannot set %s: %s\n", a->prog, a->param, strerror(-err));
	return err ? -1 : 0;
}

int aging_reclaim(const struct aging_opts *a, size_t bytes)
{
	char path[512], val[32];
	int err;

	snprintf(path, sizeof(path), "%s/memory.reclaim", a->cgroup);
	snprintf(val, sizeof(val), "%zu", bytes);
	err = sysfile_write(path, val);
	if (!err || err == -EAGAIN)
		return err;
	fprintf(stderr, "%s: write %s: %s\n", a->prog, path, strerror(-err));
	return -1;
}

int aging_rdma_open(struct aging_rdma *r, const struct aging_opts *a,
		    const struct lb_pair_attr *pa, size_t src_len)
{
	if (lb_dev_open(&r->dev, a->dev, 1))
		goto fail;
	if (!pa)
		return 0;
	if (lb_dev_gid(&r->dev, a->gid) || lb_pair_create(&r->dev, &r->qps, pa) ||
	    lb_buf_new(&r->dev, &r->src, src_len, 0x5a, IBV_ACCESS_LOCAL_WRITE))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "%s: %s\n", a->prog, r->dev.err);
	return -1;
}

void aging_rdma_close(struct aging_rdma *r)
{
	lb_buf_free(&r->src);
	lb_pair_destroy(&r->qps);
	lb_dev_close(&r->dev);
}
