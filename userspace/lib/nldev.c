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
#include <sys/time.h>
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

/* Send one request of cmd (a dump if flags has NLM_F_DUMP) carrying n u32
 * attributes: at[2 * i] is the type of the i-th, at[2 * i + 1] its value. */
static int send_req(int fd, int cmd, uint16_t flags, unsigned int seq, const uint32_t *at,
		    unsigned int n)
{
	struct {
		struct nlmsghdr h;
		uint32_t attrs[2 * 4];	/* up to 4 (header, u32) pairs */
	} req;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	unsigned int i;

	if (n > 4)
		return -1;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(0);
	req.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	req.h.nlmsg_flags = NLM_F_REQUEST | flags;
	req.h.nlmsg_seq = seq;
	for (i = 0; i < n; i++) {
		struct nlattr a = {
			.nla_len = NLA_HDRLEN + sizeof(uint32_t),
			.nla_type = (uint16_t)at[2 * i],
		};

		memcpy(&req.attrs[2 * i], &a, sizeof(a));
		req.attrs[2 * i + 1] = at[2 * i + 1];
		req.h.nlmsg_len += NLA_ALIGN(a.nla_len);
	}
	return sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) ==
	       (ssize_t)req.h.nlmsg_len ? 0 : -1;
}

/* Send one dump request of cmd, with a u32 device index if index >= 0. */
static int send_dump(int fd, int cmd, long index, unsigned int seq)
{
	const uint32_t at[2] = { RDMA_NLDEV_ATTR_DEV_INDEX, (uint32_t)index };

	return send_req(fd, cmd, NLM_F_DUMP, seq, at, index >= 0 ? 1 : 0);
}

/* What a dump's callback gets: one message's attributes. */
typedef int (*dump_fn)(const void *attrs, size_t len, void *ctx);

/* Receive the replies of request seq, calling fn on each message; fn's
 * nonzero return ends the walk early (the rest is still read).  A dump
 * ends with NLMSG_DONE, a plain request (dump 0) with its one reply.  0,
 * or -1 with errno (from an NLMSG_ERROR too). */
static int recv_replies(int fd, unsigned int seq, char *buf, int dump, dump_fn fn, void *ctx)
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
			if (!dump) {
				done = 1;
				break;
			}
		}
	}
	return 0;
}

static int recv_dump(int fd, unsigned int seq, char *buf, dump_fn fn, void *ctx)
{
	return recv_replies(fd, seq, buf, 1, fn, ctx);
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

/* A netlink session with one RDMA device: the socket, a receive buffer,
 * the device's index. */
struct nl_dev {
	int fd;
	char *buf;
	long index;
};

static void nl_dev_close(struct nl_dev *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
}

/* Open a session with RDMA device dev (looked up by name): 0, or -1 after
 * saying why in err (the session then needs no closing). */
static int nl_dev_open(struct nl_dev *s, const char *dev, char *err, size_t errlen)
{
	/* a reply that never comes (it always should) fails, not hangs */
	const struct timeval tmo = { .tv_sec = 30 };
	struct find_dev f = { .name = dev, .index = -1 };

	s->fd = -1;
	s->buf = malloc(NLDEV_BUF);
	if (!s->buf) {
		say(err, errlen, "malloc: %s", strerror(errno));
		return -1;
	}
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (s->fd < 0) {
		say(err, errlen, "socket(NETLINK_RDMA): %s", strerror(errno));
		goto fail;
	}
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo))) {
		say(err, errlen, "SO_RCVTIMEO: %s", strerror(errno));
		goto fail;
	}
	if (send_dump(s->fd, RDMA_NLDEV_CMD_GET, -1, 1) ||
	    recv_dump(s->fd, 1, s->buf, on_dev, &f)) {
		say(err, errlen, "RDMA_NLDEV_CMD_GET: %s", strerror(errno));
		goto fail;
	}
	if (f.index < 0) {
		say(err, errlen, "no RDMA device named %s", dev);
		goto fail;
	}
	s->index = f.index;
	return 0;
fail:
	nl_dev_close(s);
	return -1;
}

int nldev_mr_attrs(const char *dev, uint32_t lkey, struct nldev_attr *out, int max, char *err,
		   size_t errlen)
{
	struct find_mr fm = { .lkey = lkey, .out = out, .max = max };
	struct nl_dev s;
	int r = -2;

	if (nl_dev_open(&s, dev, err, errlen))
		return -2;
	if (send_dump(s.fd, RDMA_NLDEV_CMD_RES_MR_GET, s.index, 2) ||
	    recv_dump(s.fd, 2, s.buf, on_mrs, &fm)) {
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
	nl_dev_close(&s);
	return r;
}

/* Whether [p, p + len) is a whole sequence of attributes: each one within
 * it, and less than an attribute header left over at the end (where a walk
 * with for_each_attr() stops on a cut or corrupt attribute instead). */
static int attrs_whole(const void *p, size_t len)
{
	size_t off = 0;

	while (len - off >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)((const char *)p + off);

		if (a->nla_len < NLA_HDRLEN || a->nla_len > len - off)
			return 0;
		if ((size_t)NLA_ALIGN(a->nla_len) >= len - off)
			break;
		off += NLA_ALIGN(a->nla_len);
	}
	return 1;
}

/* One RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY (its payload): its name and
 * value into *out.  1, 0 for an entry to skip (a name too long for out),
 * -1 for a malformed one (no name, no 8-byte value). */
static int parse_hwcounter_entry(const void *p, size_t len, struct nldev_attr *out)
{
	const struct nlattr *a, *name = NULL, *value = NULL;

	if (!attrs_whole(p, len))
		return -1;
	for_each_attr(a, p, len) {
		if (attr_type(a) == RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME)
			name = a;
		else if (attr_type(a) == RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE)
			value = a;
	}
	if (!name || !value || attr_len(value) != sizeof(uint64_t) || !attr_len(name))
		return -1;
	if (strnlen(attr_data(name), attr_len(name)) >= sizeof(out->name))
		return 0;
	attr_str(name, out->name, sizeof(out->name));
	memcpy(&out->value, attr_data(value), sizeof(out->value));
	return 1;
}

int nldev_parse_stat_reply(const void *attrs, size_t len, struct nldev_attr *out, int max)
{
	const struct nlattr *a, *table = NULL, *e;
	struct nldev_attr one;
	int n = 0, r;

	if (!attrs_whole(attrs, len))
		return -1;
	for_each_attr(a, attrs, len)
		if (attr_type(a) == RDMA_NLDEV_ATTR_STAT_HWCOUNTERS)
			table = a;
	if (!table || !attrs_whole(attr_data(table), attr_len(table)))
		return -1;
	for_each_attr(e, attr_data(table), attr_len(table)) {
		if (attr_type(e) != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY)
			continue;
		r = parse_hwcounter_entry(attr_data(e), attr_len(e), n < max ? &out[n] : &one);
		if (r < 0)
			return -1;
		n += r;
	}
	return n;
}

struct stat_reply {
	struct nldev_attr *out;
	int max, n;
};

static int on_stat(const void *attrs, size_t len, void *ctx)
{
	struct stat_reply *r = ctx;

	r->n = nldev_parse_stat_reply(attrs, len, r->out, r->max);
	return 1;
}

int nldev_hw_counters(const char *dev, unsigned int port, struct nldev_attr *out, int max,
		      char *err, size_t errlen)
{
	uint32_t at[4] = { RDMA_NLDEV_ATTR_DEV_INDEX, 0, RDMA_NLDEV_ATTR_PORT_INDEX, port };
	struct stat_reply r = { .out = out, .max = max, .n = -2 };
	struct nl_dev s;

	if (nl_dev_open(&s, dev, err, errlen))
		return -1;
	at[1] = (uint32_t)s.index;
	/* a plain request, not a dump: stat_get_doit_default_counter() asks
	 * the driver (get_hw_stats) and replies with one message */
	if (send_req(s.fd, RDMA_NLDEV_CMD_STAT_GET, 0, 3, at, 2) ||
	    recv_replies(s.fd, 3, s.buf, 0, on_stat, &r)) {
		say(err, errlen, "RDMA_NLDEV_CMD_STAT_GET on %s port %u: %s", dev, port,
		    strerror(errno));
		r.n = -1;
	} else if (r.n < 0) {
		say(err, errlen, "RDMA_NLDEV_CMD_STAT_GET on %s port %u: %s", dev, port,
		    r.n == -2 ? "no reply" : "a malformed counter table");
		r.n = -1;
	}
	nl_dev_close(&s);
	return r.n;
}
