// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of the packet builder/decoder and the ICRC (ASan/UBSan). */
#include <stdlib.h>
#include <string.h>

#include "icrc.h"
#include "pkt.h"
#include "unit.h"

/*
 * A packet rdma_rxe sent (captured on a veth link by roce-fuzz --capture
 * --dump in the guest): a UD SEND_ONLY with 3 bytes of data and 1 pad
 * byte, from 169.254.77.1 to 169.254.77.2; its last 4 bytes are the ICRC
 * rxe computed.
 */
static const uint8_t rxe_sent[] = {
	0x45, 0x00, 0x00, 0x38, 0x27, 0x1f, 0x40, 0x00, 0x40, 0x11, 0x25, 0x96, 0xa9, 0xfe, 0x4d, 0x01,
	0xa9, 0xfe, 0x4d, 0x02, 0xdf, 0x94, 0x12, 0xb7, 0x00, 0x24, 0x00, 0x00, 0x64, 0x10, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x77, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x12, 0x34, 0x00, 0x00, 0x00, 0x11,
	0xa5, 0xa5, 0xa5, 0x00, 0x9b, 0xea, 0x90, 0x6f,
};

static void test_crc(void)
{
	static const uint8_t ff[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	CHECK((crc32_le_raw(0xffffffffu, "123456789", 9) ^ 0xffffffffu) == 0xcbf43926u);
	CHECK(crc32_le_raw(0xffffffffu, ff, 8) == ROCE_ICRC_SEED);
}

static void test_captured(void)
{
	struct roce_parsed r;
	struct roce_pkt f;
	int ok;

	CHECK(roce_parse(rxe_sent, sizeof(rxe_sent), &r) == 0);
	CHECK(r.icrc == r.icrc_calc);
	CHECK(r.opcode == (OP_UD | OP_SEND_ONLY) && r.dqpn == 0x77 && r.payload_len == 3);
	CHECK(roce_decode(rxe_sent, sizeof(rxe_sent), &f, &ok) == 0 && ok && !f.truncate);
	CHECK(f.deth_qkey == 0x1234 && f.deth_sqpn == 0x11 && f.pad == 1);
}

static size_t build(struct roce_pkt *p, uint8_t *buf)
{
	return roce_build(p, buf, 70000);
}

static void test_roundtrip(void)
{
	static uint8_t buf[70000], pay[5000];
	struct roce_pkt p, f;
	struct roce_parsed r;
	size_t len, i, cut;
	int ok, op;

	for (i = 0; i < sizeof(pay); i++)
		pay[i] = (uint8_t)(i * 7);
	for (op = 0; op < 256; op++) {
		if (!roce_ops[op].name)
			continue;
		roce_pkt_init(&p);
		p.opcode = (uint8_t)op;
		p.dqpn = 0x123456;
		p.psn = 0xfffffe;
		p.pkey = 0xffff;
		p.reth_va = 0xfffffffffffff000ull;
		p.reth_rkey = 0xabcdef01;
		p.reth_len = 0x80000000u;
		p.atm_va = 0x1122334455667788ull;
		p.atm_rkey = 0x99;
		p.atm_swap = 1;
		p.atm_comp = 2;
		p.deth_qkey = 0x80010000u;
		p.deth_sqpn = 0xabcdef;
		p.aeth_syn = 0x60;
		p.aeth_msn = 0x654321;
		p.immdt = 0xdeadbeef;
		p.ieth_rkey = 0x1234;
		p.payload = pay;
		p.payload_len = roce_ops[op].payload ? 1001 : 0;
		p.pad = (uint8_t)((-(unsigned int)p.payload_len) & 3);
		len = build(&p, buf);
		CHECK(len == IP4_BYTES + UDP_BYTES + BTH_BYTES + roce_ext_len(roce_ops[op].ext) +
			     p.payload_len + p.pad + ICRC_BYTES);
		CHECK(roce_parse(buf, len, &r) == 0);
		CHECK(r.opcode == op && r.dqpn == 0x123456 && r.psn == 0xfffffe);
		CHECK(r.icrc == r.icrc_calc && r.payload_len == p.payload_len);
		CHECK(roce_decode(buf, len, &f, &ok) == 0 && ok && !f.truncate);
		CHECK(f.opcode == op && f.dqpn == p.dqpn && f.psn == p.psn && f.pkey == 0xffff);
		CHECK(f.payload_len == p.payload_len && f.pad == p.pad);
		CHECK(!f.payload_len || !memcmp(f.payload, pay, f.payload_len));
		if (roce_ops[op].ext & EXT_RETH)
			CHECK(f.reth_va == p.reth_va && f.reth_rkey == p.reth_rkey &&
			      f.reth_len == p.reth_len);
		if (roce_ops[op].ext & EXT_ATMETH)
			CHECK(f.atm_va == p.atm_va && f.atm_rkey == p.atm_rkey &&
			      f.atm_swap == 1 && f.atm_comp == 2);
		if (roce_ops[op].ext & EXT_DETH)
			CHECK(f.deth_qkey == p.deth_qkey && f.deth_sqpn == p.deth_sqpn);
		if (roce_ops[op].ext & EXT_AETH)
			CHECK(f.aeth_syn == 0x60 && f.aeth_msn == 0x654321);
		if (roce_ops[op].ext & EXT_IMMDT)
			CHECK(f.immdt == 0xdeadbeef);
		if (roce_ops[op].ext & EXT_IETH)
			CHECK(f.ieth_rkey == 0x1234);
		/* every cut: no read past the end, never a valid-looking packet */
		for (cut = 0; cut < len; cut++) {
			uint8_t *c = malloc(cut ? cut : 1);

			memcpy(c, buf, cut);
			if (roce_decode(c, cut, &f, &ok) == 0)
				CHECK(f.truncate || !ok);
			roce_parse(c, cut, &r);
			free(c);
		}
	}
}

/* The ICRC ignores exactly the fields routers may change. */
static void test_masks(void)
{
	static const size_t masked[] = { 1, 8, 10, 11, 26, 27, 32 };
	static uint8_t buf[2000];
	struct roce_pkt p, f;
	size_t len, i, at;
	int ok;

	roce_pkt_init(&p);
	p.opcode = OP_SEND_ONLY;
	p.dqpn = 17;
	len = build(&p, buf);
	for (i = 0; i < sizeof(masked) / sizeof(masked[0]); i++) {
		buf[masked[i]] ^= 0x5a;
		CHECK(roce_decode(buf, len, &f, &ok) == 0 && ok);
		buf[masked[i]] ^= 0x5a;
	}
	for (at = 0; at < len - ICRC_BYTES; at++) {
		int m = 0;

		for (i = 0; i < sizeof(masked) / sizeof(masked[0]); i++)
			m |= masked[i] == at;
		if (m)
			continue;
		buf[at] ^= 0x01;
		CHECK(roce_decode(buf, len, &f, &ok) || !ok || f.truncate);
		buf[at] ^= 0x01;
	}
	p.icrc_xor = 1;
	len = build(&p, buf);
	CHECK(roce_decode(buf, len, &f, &ok) == 0 && !ok);
	roce_set_icrc4(buf, len);
	CHECK(roce_decode(buf, len, &f, &ok) == 0 && ok);
}

static void test_misc(void)
{
	static uint8_t buf[100];
	struct roce_pkt p;

	CHECK(psn_diff(0, 0xffffff) == 1 && psn_diff(0xffffff, 0) == -1);
	CHECK(psn_diff(0x800000, 0) == -0x800000 && psn_diff(0x7fffff, 0) == 0x7fffff);
	CHECK(roce_ext_len(EXT_RETH | EXT_IMMDT) == 20 && roce_ext_len(EXT_ATMETH) == 28);
	roce_pkt_init(&p);
	p.opcode = OP_SEND_ONLY;
	p.payload_len = 200;
	p.payload = buf;
	CHECK(roce_build(&p, buf, sizeof(buf)) == 0);	/* does not fit */
}

int main(void)
{
	test_crc();
	test_captured();
	test_roundtrip();
	test_masks();
	test_misc();
	return unit_result("roce-fuzz unit");
}
