/*
 * RoCEv2 packets as bytes: the IBA transport headers (BTH and the extended
 * headers each opcode carries), a builder that lays out IPv4 + UDP + IB
 * transport + payload + pad + ICRC, with every field settable, including
 * inconsistent ones, and a parser for packets captured off a link.
 */
#ifndef ROCE_FUZZ_PKT_H
#define ROCE_FUZZ_PKT_H

#include <stddef.h>
#include <stdint.h>

#define ROCE_UDP_PORT	4791
#define BTH_BYTES	12
#define IP4_BYTES	20
#define UDP_BYTES	8
#define ICRC_BYTES	4
#define PSN_MASK	0xffffffu
#define QPN_MASK	0xffffffu
#define MCAST_QPN	0xffffffu
#define GSI_QKEY	0x80010000u
#define GRH_BYTES	40	/* what a UD receive gets in front of the data */

/* Extended transport headers, in the order they follow the BTH. */
enum roce_ext {
	EXT_RDETH = 1 << 0,	/* 4: reliable datagram */
	EXT_DETH = 1 << 1,	/* 8: Q_Key, source QP */
	EXT_FETH = 1 << 2,	/* 4: FLUSH type and level */
	EXT_RETH = 1 << 3,	/* 16: VA, R_Key, DMA length */
	EXT_ATMETH = 1 << 4,	/* 28: VA, R_Key, swap/add, compare */
	EXT_AETH = 1 << 5,	/* 4: syndrome, MSN */
	EXT_ATMACK = 1 << 6,	/* 8: original value */
	EXT_IMMDT = 1 << 7,	/* 4: immediate data */
	EXT_IETH = 1 << 8,	/* 4: R_Key to invalidate */
};

/* What an opcode is, as far as the layout goes. */
struct roce_op {
	const char *name;	/* NULL: reserved / not an IBA opcode */
	unsigned int ext;	/* enum roce_ext bits */
	unsigned int payload;	/* 1: carries data */
};

/* The opcode table (256 entries; name NULL where the IBA reserves it). */
extern const struct roce_op roce_ops[256];

/* IBA transport opcodes used by name. */
enum {
	OP_RC = 0x00, OP_UC = 0x20, OP_RD = 0x40, OP_UD = 0x60,
	OP_SEND_FIRST = 0x00, OP_SEND_MIDDLE, OP_SEND_LAST, OP_SEND_LAST_IMM,
	OP_SEND_ONLY, OP_SEND_ONLY_IMM, OP_WRITE_FIRST, OP_WRITE_MIDDLE,
	OP_WRITE_LAST, OP_WRITE_LAST_IMM, OP_WRITE_ONLY, OP_WRITE_ONLY_IMM,
	OP_READ_REQ, OP_READ_RESP_FIRST, OP_READ_RESP_MIDDLE,
	OP_READ_RESP_LAST, OP_READ_RESP_ONLY, OP_ACK, OP_ATOMIC_ACK,
	OP_CMP_SWAP, OP_FETCH_ADD, OP_SEND_LAST_INV = 0x16,
	OP_SEND_ONLY_INV = 0x17, OP_FLUSH = 0x1c, OP_ATOMIC_WRITE = 0x1d,
	OP_CNP = 0x81,
};

/* Length in bytes of the extended headers ext (enum roce_ext bits). */
size_t roce_ext_len(unsigned int ext);

/* Every field of one packet; roce_build() writes them as they are. */
struct roce_pkt {
	/* IPv4 + UDP */
	uint32_t saddr, daddr;		/* host order */
	uint8_t tos, ttl;
	uint16_t ip_id;			/* 0: 1 (never 0, see roce_build) */
	uint16_t sport, dport;
	int udp_len;			/* -1: the real length */
	uint16_t udp_csum;		/* 0: none (allowed for IPv4) */
	/* BTH */
	uint8_t opcode;
	uint8_t se, migreq, pad, tver;	/* pad: 0..3; tver: 0..15 */
	uint16_t pkey;
	uint8_t resv8a;			/* FECN/BECN/resv6a: masked in ICRC */
	uint32_t dqpn;
	uint8_t ackreq;
	uint8_t resv7;
	uint32_t psn;
	/* extended headers: which ones (default from roce_ops[]) */
	unsigned int ext;
	int ext_override;		/* 1: use ext as given */
	uint32_t rdeth_eecn;
	uint32_t deth_qkey, deth_sqpn;
	uint32_t feth;
	uint64_t reth_va;
	uint32_t reth_rkey, reth_len;
	uint64_t atm_va, atm_swap, atm_comp;
	uint32_t atm_rkey;
	uint8_t aeth_syn;
	uint32_t aeth_msn;
	uint64_t atmack_orig;
	uint32_t immdt;
	uint32_t ieth_rkey;
	/* data: payload bytes, then pad bytes of pad_byte */
	const uint8_t *payload;
	size_t payload_len;
	uint8_t pad_byte;
	/* damage: flip ICRC bits (0: valid), cut the packet after
	 * truncate bytes of the IP packet (0: whole) */
	uint32_t icrc_xor;
	size_t truncate;
};

/* Field defaults of a well-formed packet to 127.0.0.1:4791. */
void roce_pkt_init(struct roce_pkt *p);

/*
 * Lay out p as an IPv4 packet in buf (cap bytes).  Returns its length, or
 * 0 if it does not fit.  The IPv4 checksum is filled in; the ICRC is the
 * valid one xor p->icrc_xor, computed before truncation.
 */
size_t roce_build(const struct roce_pkt *p, uint8_t *buf, size_t cap);

/* Offset of the BTH in an IPv4 packet, and the parts of a parsed one. */
struct roce_parsed {
	size_t ip_hdr;		/* 20 or 40 */
	size_t bth;		/* offset of the BTH */
	size_t payload;		/* offset of the payload */
	size_t payload_len;	/* without pad */
	uint8_t opcode, pad;
	uint32_t dqpn, psn;
	uint32_t icrc;		/* as found in the packet */
	uint32_t icrc_calc;	/* as computed */
};

/*
 * Parse an IPv4 or IPv6 RoCEv2 packet (from the IP header on) of len
 * bytes.  Returns 0, or -1 if it is not one (not UDP to 4791, shorter than
 * its headers, an unknown opcode).
 */
int roce_parse(const uint8_t *buf, size_t len, struct roce_parsed *r);

/* Recompute the ICRC of an IPv4 packet of len bytes (the last 4). */
void roce_set_icrc4(uint8_t *buf, size_t len);

/*
 * What rxe sees in an IPv4 packet of len bytes: every field decoded the way
 * rxe lays its headers out for the opcode found (extended headers by the
 * opcode table; payload length from the UDP length), into f (ext_override
 * 0, payload pointing into buf).  f->udp_len holds the UDP length field and
 * f->truncate is 1 when it disagrees with the IP length or the headers do
 * not fit; *icrc_ok says whether the ICRC matches.  Returns -1 if buf is
 * not UDP over IPv4 with at least a BTH.
 */
int roce_decode(const uint8_t *buf, size_t len, struct roce_pkt *f, int *icrc_ok);

/* PSN arithmetic modulo 2^24: a - b as a signed 24-bit number. */
static inline int32_t psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

#endif
