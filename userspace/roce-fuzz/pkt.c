// SPDX-License-Identifier: GPL-2.0
#include "pkt.h"

#include <string.h>

#include "icrc.h"

#define P 1
#define RC_LIKE(base, pre)                                                   \
	[(base) + 0x00] = { "SEND_FIRST", (pre), P },                        \
	[(base) + 0x01] = { "SEND_MIDDLE", (pre), P },                       \
	[(base) + 0x02] = { "SEND_LAST", (pre), P },                         \
	[(base) + 0x03] = { "SEND_LAST_IMM", (pre) | EXT_IMMDT, P },         \
	[(base) + 0x04] = { "SEND_ONLY", (pre), P },                         \
	[(base) + 0x05] = { "SEND_ONLY_IMM", (pre) | EXT_IMMDT, P },         \
	[(base) + 0x06] = { "WRITE_FIRST", (pre) | EXT_RETH, P },            \
	[(base) + 0x07] = { "WRITE_MIDDLE", (pre), P },                      \
	[(base) + 0x08] = { "WRITE_LAST", (pre), P },                        \
	[(base) + 0x09] = { "WRITE_LAST_IMM", (pre) | EXT_IMMDT, P },        \
	[(base) + 0x0a] = { "WRITE_ONLY", (pre) | EXT_RETH, P },             \
	[(base) + 0x0b] = { "WRITE_ONLY_IMM", (pre) | EXT_RETH | EXT_IMMDT, P }

/* From the IBA opcode table (Vol. 1, 9.2.2, table 39 and the RC FLUSH /
 * ATOMIC WRITE additions of the 2020 memory placement extensions). */
const struct roce_op roce_ops[256] = {
	RC_LIKE(OP_RC, 0),
	[0x0c] = { "READ_REQ", EXT_RETH, 0 },
	[0x0d] = { "READ_RESP_FIRST", EXT_AETH, P },
	[0x0e] = { "READ_RESP_MIDDLE", 0, P },
	[0x0f] = { "READ_RESP_LAST", EXT_AETH, P },
	[0x10] = { "READ_RESP_ONLY", EXT_AETH, P },
	[0x11] = { "ACK", EXT_AETH, 0 },
	[0x12] = { "ATOMIC_ACK", EXT_AETH | EXT_ATMACK, 0 },
	[0x13] = { "CMP_SWAP", EXT_ATMETH, 0 },
	[0x14] = { "FETCH_ADD", EXT_ATMETH, 0 },
	[0x16] = { "SEND_LAST_INV", EXT_IETH, P },
	[0x17] = { "SEND_ONLY_INV", EXT_IETH, P },
	[0x1c] = { "FLUSH", EXT_FETH | EXT_RETH, 0 },
	[0x1d] = { "ATOMIC_WRITE", EXT_RETH, P },
	RC_LIKE(OP_UC, 0),
	RC_LIKE(OP_RD, EXT_RDETH | EXT_DETH),
	[0x4c] = { "RD_READ_REQ", EXT_RDETH | EXT_DETH | EXT_RETH, 0 },
	[0x4d] = { "RD_READ_RESP_FIRST", EXT_RDETH | EXT_AETH, P },
	[0x4e] = { "RD_READ_RESP_MIDDLE", EXT_RDETH, P },
	[0x4f] = { "RD_READ_RESP_LAST", EXT_RDETH | EXT_AETH, P },
	[0x50] = { "RD_READ_RESP_ONLY", EXT_RDETH | EXT_AETH, P },
	[0x51] = { "RD_ACK", EXT_RDETH | EXT_AETH, 0 },
	[0x52] = { "RD_ATOMIC_ACK", EXT_RDETH | EXT_AETH | EXT_ATMACK, 0 },
	[0x53] = { "RD_CMP_SWAP", EXT_RDETH | EXT_DETH | EXT_ATMETH, 0 },
	[0x54] = { "RD_FETCH_ADD", EXT_RDETH | EXT_DETH | EXT_ATMETH, 0 },
	[0x55] = { "RD_RESYNC", EXT_RDETH | EXT_DETH, 0 },
	[0x64] = { "UD_SEND_ONLY", EXT_DETH, P },
	[0x65] = { "UD_SEND_ONLY_IMM", EXT_DETH | EXT_IMMDT, P },
	[0x81] = { "CNP", 0, P },
};

size_t roce_ext_len(unsigned int ext)
{
	static const uint8_t len[] = { 4, 8, 4, 16, 28, 4, 8, 4, 4 };
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < sizeof(len); i++)
		if (ext & (1u << i))
			n += len[i];
	return n;
}

void roce_pkt_init(struct roce_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->saddr = 0x7f000001;
	p->daddr = 0x7f000001;
	p->ttl = 64;
	p->sport = 49152;
	p->dport = ROCE_UDP_PORT;
	p->udp_len = -1;
	p->pkey = 0xffff;
	p->dqpn = 0;
}

static uint8_t *put8(uint8_t *q, uint8_t v)
{
	*q = v;
	return q + 1;
}

static uint8_t *put16(uint8_t *q, uint16_t v)
{
	q[0] = (uint8_t)(v >> 8);
	q[1] = (uint8_t)v;
	return q + 2;
}

static uint8_t *put32(uint8_t *q, uint32_t v)
{
	q = put16(q, (uint16_t)(v >> 16));
	return put16(q, (uint16_t)v);
}

static uint8_t *put64(uint8_t *q, uint64_t v)
{
	q = put32(q, (uint32_t)(v >> 32));
	return put32(q, (uint32_t)v);
}

static uint32_t get32(const uint8_t *q)
{
	return (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
}

static uint16_t ip_csum(const uint8_t *h, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)h[i] << 8 | h[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

size_t roce_build(const struct roce_pkt *p, uint8_t *buf, size_t cap)
{
	unsigned int ext = p->ext_override ? p->ext : roce_ops[p->opcode].ext;
	size_t ib = BTH_BYTES + roce_ext_len(ext) + p->payload_len + p->pad;
	size_t total = IP4_BYTES + UDP_BYTES + ib + ICRC_BYTES;
	uint8_t *q;
	uint32_t icrc;
	size_t i;

	if (total > cap || total > 65535)
		return 0;
	q = buf;
	/* IPv4 */
	q = put8(q, 0x45);
	q = put8(q, p->tos);
	q = put16(q, (uint16_t)total);
	/* the ICRC covers the id: a zero one would be replaced by the kernel */
	q = put16(q, p->ip_id ? p->ip_id : 1);
	q = put16(q, 0x4000);			/* DF */
	q = put8(q, p->ttl);
	q = put8(q, 17);
	q = put16(q, 0);
	q = put32(q, p->saddr);
	q = put32(q, p->daddr);
	put16(buf + 10, ip_csum(buf, IP4_BYTES));
	/* UDP */
	q = put16(q, p->sport);
	q = put16(q, p->dport);
	q = put16(q, (uint16_t)(p->udp_len >= 0 ? p->udp_len :
				(int)(UDP_BYTES + ib + ICRC_BYTES)));
	q = put16(q, p->udp_csum);
	/* BTH */
	q = put8(q, p->opcode);
	q = put8(q, (uint8_t)((p->se & 1) << 7 | (p->migreq & 1) << 6 |
			      (p->pad & 3) << 4 | (p->tver & 15)));
	q = put16(q, p->pkey);
	q = put32(q, (uint32_t)p->resv8a << 24 | (p->dqpn & QPN_MASK));
	q = put32(q, (uint32_t)(p->ackreq & 1) << 31 | (uint32_t)(p->resv7 & 0x7f) << 24 |
		     (p->psn & PSN_MASK));
	if (ext & EXT_RDETH)
		q = put32(q, p->rdeth_eecn);
	if (ext & EXT_DETH) {
		q = put32(q, p->deth_qkey);
		q = put32(q, p->deth_sqpn & QPN_MASK);
	}
	if (ext & EXT_FETH)
		q = put32(q, p->feth);
	if (ext & EXT_RETH) {
		q = put64(q, p->reth_va);
		q = put32(q, p->reth_rkey);
		q = put32(q, p->reth_len);
	}
	if (ext & EXT_ATMETH) {
		q = put64(q, p->atm_va);
		q = put32(q, p->atm_rkey);
		q = put64(q, p->atm_swap);
		q = put64(q, p->atm_comp);
	}
	if (ext & EXT_AETH)
		q = put32(q, (uint32_t)p->aeth_syn << 24 | (p->aeth_msn & 0xffffff));
	if (ext & EXT_ATMACK)
		q = put64(q, p->atmack_orig);
	if (ext & EXT_IMMDT)
		q = put32(q, p->immdt);
	if (ext & EXT_IETH)
		q = put32(q, p->ieth_rkey);
	if (p->payload_len)
		memcpy(q, p->payload, p->payload_len);
	q += p->payload_len;
	for (i = 0; i < p->pad; i++)
		*q++ = p->pad_byte;
	icrc = roce_icrc4(buf, (size_t)(q - buf)) ^ p->icrc_xor;
	for (i = 0; i < 4; i++)
		*q++ = (uint8_t)(icrc >> (8 * i));	/* little-endian */
	if (p->truncate && p->truncate < total) {
		total = p->truncate;
		put16(buf + 2, (uint16_t)total);
		put16(buf + 10, 0);
		put16(buf + 10, ip_csum(buf, IP4_BYTES));
	}
	return total;
}

int roce_parse(const uint8_t *buf, size_t len, struct roce_parsed *r)
{
	const uint8_t *u, *bth;
	size_t ip, hdr, end;
	unsigned int ext;
	uint8_t op;

	memset(r, 0, sizeof(*r));
	if (len < 1)
		return -1;
	if ((buf[0] >> 4) == 4) {
		ip = (size_t)(buf[0] & 15) * 4;
		if (ip != IP4_BYTES || len < ip || buf[9] != 17)
			return -1;
		end = (size_t)buf[2] << 8 | buf[3];
	} else if ((buf[0] >> 4) == 6) {
		ip = 40;
		if (len < ip || buf[6] != 17)
			return -1;
		end = ip + ((size_t)buf[4] << 8 | buf[5]);
	} else {
		return -1;
	}
	if (end > len)
		return -1;
	if (end < ip + UDP_BYTES + BTH_BYTES + ICRC_BYTES)
		return -1;
	u = buf + ip;
	if (((unsigned int)u[2] << 8 | u[3]) != ROCE_UDP_PORT)
		return -1;
	bth = u + UDP_BYTES;
	op = bth[0];
	if (!roce_ops[op].name)
		return -1;
	ext = roce_ops[op].ext;
	hdr = ip + UDP_BYTES + BTH_BYTES + roce_ext_len(ext);
	r->ip_hdr = ip;
	r->bth = ip + UDP_BYTES;
	r->opcode = op;
	r->pad = (bth[1] >> 4) & 3;
	r->dqpn = get32(bth + 4) & QPN_MASK;
	r->psn = get32(bth + 8) & PSN_MASK;
	if (hdr + r->pad + ICRC_BYTES > end)
		return -1;
	r->payload = hdr;
	r->payload_len = end - hdr - r->pad - ICRC_BYTES;
	r->icrc = (uint32_t)buf[end - 4] | (uint32_t)buf[end - 3] << 8 |
		  (uint32_t)buf[end - 2] << 16 | (uint32_t)buf[end - 1] << 24;
	r->icrc_calc = ip == IP4_BYTES ? roce_icrc4(buf, end - 4) : roce_icrc6(buf, end - 4);
	return 0;
}

void roce_set_icrc4(uint8_t *buf, size_t len)
{
	uint32_t icrc;
	int i;

	if (len < IP4_BYTES + UDP_BYTES + ICRC_BYTES)
		return;
	icrc = roce_icrc4(buf, len - ICRC_BYTES);
	for (i = 0; i < 4; i++)
		buf[len - ICRC_BYTES + (size_t)i] = (uint8_t)(icrc >> (8 * i));
}

static uint64_t get64(const uint8_t *q)
{
	return (uint64_t)get32(q) << 32 | get32(q + 4);
}

int roce_decode(const uint8_t *buf, size_t len, struct roce_pkt *f, int *icrc_ok)
{
	const uint8_t *u, *b, *q;
	unsigned int ext;
	size_t ulen, hdr, ib;
	uint32_t icrc;

	memset(f, 0, sizeof(*f));
	*icrc_ok = 0;
	if (len < IP4_BYTES + UDP_BYTES + BTH_BYTES || buf[0] != 0x45 || buf[9] != 17)
		return -1;
	f->tos = buf[1];
	f->ttl = buf[8];
	f->ip_id = (uint16_t)(buf[4] << 8 | buf[5]);
	f->saddr = get32(buf + 12);
	f->daddr = get32(buf + 16);
	u = buf + IP4_BYTES;
	f->sport = (uint16_t)(u[0] << 8 | u[1]);
	f->dport = (uint16_t)(u[2] << 8 | u[3]);
	ulen = (size_t)u[4] << 8 | u[5];
	f->udp_len = (int)ulen;
	f->udp_csum = (uint16_t)(u[6] << 8 | u[7]);
	b = u + UDP_BYTES;
	f->opcode = b[0];
	f->se = b[1] >> 7;
	f->migreq = (b[1] >> 6) & 1;
	f->pad = (b[1] >> 4) & 3;
	f->tver = b[1] & 15;
	f->pkey = (uint16_t)(b[2] << 8 | b[3]);
	f->resv8a = b[4];
	f->dqpn = get32(b + 4) & QPN_MASK;
	f->ackreq = b[8] >> 7;
	f->resv7 = b[8] & 0x7f;
	f->psn = get32(b + 8) & PSN_MASK;
	ext = roce_ops[f->opcode].ext;
	f->ext = ext;
	hdr = BTH_BYTES + roce_ext_len(ext);
	if (ulen != len - IP4_BYTES || ulen < UDP_BYTES + hdr + f->pad + ICRC_BYTES) {
		f->truncate = 1;
		return 0;
	}
	ib = ulen - UDP_BYTES;
	q = b + BTH_BYTES;
	if (ext & EXT_RDETH) {
		f->rdeth_eecn = get32(q);
		q += 4;
	}
	if (ext & EXT_DETH) {
		f->deth_qkey = get32(q);
		f->deth_sqpn = get32(q + 4) & QPN_MASK;
		q += 8;
	}
	if (ext & EXT_FETH) {
		f->feth = get32(q);
		q += 4;
	}
	if (ext & EXT_RETH) {
		f->reth_va = get64(q);
		f->reth_rkey = get32(q + 8);
		f->reth_len = get32(q + 12);
		q += 16;
	}
	if (ext & EXT_ATMETH) {
		f->atm_va = get64(q);
		f->atm_rkey = get32(q + 8);
		f->atm_swap = get64(q + 12);
		f->atm_comp = get64(q + 20);
		q += 28;
	}
	if (ext & EXT_AETH) {
		f->aeth_syn = q[0];
		f->aeth_msn = get32(q) & 0xffffff;
		q += 4;
	}
	if (ext & EXT_ATMACK) {
		f->atmack_orig = get64(q);
		q += 8;
	}
	if (ext & EXT_IMMDT) {
		f->immdt = get32(q);
		q += 4;
	}
	if (ext & EXT_IETH) {
		f->ieth_rkey = get32(q);
		q += 4;
	}
	f->payload = q;
	f->payload_len = ib - hdr - f->pad - ICRC_BYTES;
	icrc = roce_icrc4(buf, len - ICRC_BYTES);
	*icrc_ok = buf[len - 4] == (uint8_t)icrc && buf[len - 3] == (uint8_t)(icrc >> 8) &&
		   buf[len - 2] == (uint8_t)(icrc >> 16) && buf[len - 1] == (uint8_t)(icrc >> 24);
	return 0;
}
