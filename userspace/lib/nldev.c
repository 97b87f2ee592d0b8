/* nldev: an MR's driver attributes over RDMA netlink (see nldev.h). */
#include "nldev.h"

#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define NLDEV_BUF 65536

/* Walk the attributes of [p, p + len): a for-loop header. */
#define for_each_attr(a, p, len)                                                        \
	for (a = (const struct nlattr *)(p);                                            \
	     (const char *)a + NLA_HDRLEN <= (const char *)(p) + (len) &&               \
	     a->nla_len >= NLA_HDRLEN &&                                                \
	     (const char *)a + a->nla_len <= (const char *)(p) + (len);                 \
	     a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len)))

static int attr_type(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;
}

static const void *attr_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static size_t attr_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

/* A string attribute's value, cut at its length (the kernel ends it with
 * a NUL, a corrupt message may not). */
static void attr_str(const struct nlattr *a, char *out, size_t outlen)
{
	size_t n = attr_len(a);

	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, attr_data(a), n);
	out[n] = 0;
	out[strnlen(out, n)] = 0;
}

static uint64_t attr_uint(const struct nlattr *a)
{
	uint64_t v64 = 0;
	uint32_t v32 = 0;

	if (attr_len(a) >= 8) {
		memcpy(&v64, attr_data(a), 8);
		return v64;
	}
	if (attr_len(a) >= 4)
		memcpy(&v32, attr_data(a), 4);
	return v32;
}

int nldev_parse_driver_table(const void *payload, size_t len, struct nldev_attr *out, int max)
{
	const struct nlattr *a;
	char name[sizeof(out->name)] = "";
	int have_name = 0, n = 0;

	for_each_attr(a, payload, len) {
		switch (attr_type(a)) {
		case RDMA_NLDEV_ATTR_DRIVER_STRING:
			if (!have_name) {
				attr_str(a, name, sizeof(name));
				have_name = 1;
			} else {
				have_name = 0;	/* a string value: not a counter */
			}
			break;
		case RDMA_NLDEV_ATTR_DRIVER_U32:
		case RDMA_NLDEV_ATTR_DRIVER_S32:
		case RDMA_NLDEV_ATTR_DRIVER_U64:
		case RDMA_NLDEV_ATTR_DRIVER_S64:
			if (!have_name)
				break;
			if (n < max) {
				snprintf(out[n].name, sizeof(out[n].name), "%s", name);
				out[n].value = attr_uint(a);
			}
			n++;
			have_name = 0;
			break;
		default:	/* the print type, padding */
			break;
		}
	}
	return n;
}

long long nldev_attr_get(const struct nldev_attr *a, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(a[i].name, name))
			return (long long)a[i].value;
	return -1;
}

static void say(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Send one dump request of cmd, with a u32 device index if index >= 0. */
static int send_dump(int fd, int cmd, long index, unsigned int seq)
{
	struct {
		struct nlmsghdr h;
		struct nlattr a;
		uint32_t index;
	} req;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(0);
	req.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.h.nlmsg_seq = seq;
	if (index >= 0) {
		req.a.nla_len = NLA_HDRLEN + sizeof(uint32_t);
		req.a.nla_type = RDMA_NLDEV_ATTR_DEV_INDEX;
		req.index = (uint32_t)index;
		req.h.nlmsg_len += NLA_ALIGN(req.a.nla_len);
	}
	return sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) ==
	       (ssize_t)req.h.nlmsg_len ? 0 : -1;
}

/* What a dump's callback gets: one message's attributes. */
typedef int (*dump_fn)(const void *attrs, size_t len, void *ctx);

/* Receive the replies of dump seq, calling fn on each message; fn's
 * nonzero return ends the walk early (the rest is still read).  0, or -1
 * with errno (from an NLMSG_ERROR too). */
static int recv_dump(int fd, unsigned int seq, char *buf, dump_fn fn, void *ctx)
{
	int done = 0, stop = 0;

	while (!done) {
		ssize_t n = recv(fd, buf, NLDEV_BUF, 0);
		struct nlmsghdr *h;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				errno = e->error ? -e->error : EPROTO;
				return -1;
			}
			if (!stop)
				stop = fn(NLMSG_DATA(h), h->nlmsg_len - NLMSG_HDRLEN, ctx);
		}
	}
	return 0;
}

struct find_dev {
	const char *name;
	long index;
};

static int on_dev(const void *attrs, size_t len, void *ctx)
{
	struct find_dev *f = ctx;
	const struct nlattr *a;
	char name[64] = "";
	long index = -1;

	for_each_attr(a, attrs, len) {
		if (attr_type(a) == RDMA_NLDEV_ATTR_DEV_INDEX)
			index = (long)attr_uint(a);
		else if (attr_type(a) == RDMA_NLDEV_ATTR_DEV_NAME)
			attr_str(a, name, sizeof(name));
	}
	if (index >= 0 && !strcmp(name, f->name)) {
		f->index = index;
		return 1;
	}
	return 0;
}

struct find_mr {
	uint32_t lkey;
	struct nldev_attr *out;
	int max, found, n;
};

/* One MR entry: its lkey, and its driver table if the lkey is ours. */
static void on_mr_entry(const void *p, size_t len, struct find_mr *f)
{
	const struct nlattr *a, *drv = NULL;
	int has_lkey = 0;
	uint32_t lkey = 0;

	for_each_attr(a, p, len) {
		if (attr_type(a) == RDMA_NLDEV_ATTR_RES_LKEY) {
			lkey = (uint32_t)attr_uint(a);
			has_lkey = 1;
		} else if (attr_type(a) == RDMA_NLDEV_ATTR_DRIVER) {
			drv = a;
		}
	}
	if (!has_lkey || lkey != f->lkey || f->found)
		return;
	f->found = 1;
	f->n = drv ? nldev_parse_driver_table(attr_data(drv), attr_len(drv), f->out, f->max) : 0;
}

static int on_mrs(const void *attrs, size_t len, void *ctx)
{
	const struct nlattr *a, *e;

	for_each_attr(a, attrs, len) {
		if (attr_type(a) != RDMA_NLDEV_ATTR_RES_MR)
			continue;
		for_each_attr(e, attr_data(a), attr_len(a))
			if (attr_type(e) == RDMA_NLDEV_ATTR_RES_MR_ENTRY)
				on_mr_entry(attr_data(e), attr_len(e), ctx);
	}
	return ((struct find_mr *)ctx)->found;
}

int nldev_mr_attrs(const char *dev, uint32_t lkey, struct nldev_attr *out, int max, char *err,
		   size_t errlen)
{
	struct find_dev fd_ = { .name = dev, .index = -1 };
	struct find_mr fm = { .lkey = lkey, .out = out, .max = max };
	char *buf = malloc(NLDEV_BUF);
	int fd, r = -2;

	if (!buf) {
		say(err, errlen, "malloc: %s", strerror(errno));
		return -2;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (fd < 0) {
		say(err, errlen, "socket(NETLINK_RDMA): %s", strerror(errno));
		free(buf);
		return -2;
	}
	if (send_dump(fd, RDMA_NLDEV_CMD_GET, -1, 1) ||
	    recv_dump(fd, 1, buf, on_dev, &fd_)) {
		say(err, errlen, "RDMA_NLDEV_CMD_GET: %s", strerror(errno));
		goto out;
	}
	if (fd_.index < 0) {
		say(err, errlen, "no RDMA device named %s", dev);
		goto out;
	}
	if (send_dump(fd, RDMA_NLDEV_CMD_RES_MR_GET, fd_.index, 2) ||
	    recv_dump(fd, 2, buf, on_mrs, &fm)) {
		say(err, errlen, "RDMA_NLDEV_CMD_RES_MR_GET on %s: %s", dev, strerror(errno));
		goto out;
	}
	if (!fm.found) {
		say(err, errlen, "%s has no MR with lkey %#x (lkeys are only shown to root)", dev,
		    lkey);
		r = -1;
		goto out;
	}
	r = fm.n;
out:
	close(fd);
	free(buf);
	return r;
}
