// SPDX-License-Identifier: GPL-2.0
#include "icrc.h"

#include <string.h>

static uint32_t crc_table[256];

static void crc_table_init(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = (uint32_t)i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t crc32_le_raw(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!crc_table[1])
		crc_table_init();
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

/* hdr: the IP header size (20 or 40); the masked copy of IP + UDP + BTH
 * goes through the CRC first, then the rest as it is. */
static uint32_t roce_icrc(const uint8_t *pkt, size_t len, size_t hdr)
{
	uint8_t m[40 + 8 + 12];
	size_t n = hdr + 8 + 12;
	uint32_t crc = ROCE_ICRC_SEED;

	if (len < n) {		/* no whole BTH: cover what there is */
		memcpy(m, pkt, len);
		n = len;
	} else {
		memcpy(m, pkt, n);
	}
	if (hdr == 20) {
		m[1] = 0xff;			/* TOS (DSCP, ECN) */
		if (n > 8)
			m[8] = 0xff;		/* TTL */
		if (n > 11)
			m[10] = m[11] = 0xff;	/* header checksum */
	} else {
		m[0] |= 0x0f;			/* traffic class (low nibble) */
		if (n > 3)
			m[1] = m[2] = m[3] = 0xff; /* traffic class, flow label */
		if (n > 7)
			m[7] = 0xff;		/* hop limit */
	}
	if (n > hdr + 7)
		m[hdr + 6] = m[hdr + 7] = 0xff;	/* UDP checksum */
	if (n > hdr + 8 + 4)
		m[hdr + 8 + 4] = 0xff;		/* BTH FECN, BECN, resv6a */
	crc = crc32_le_raw(crc, m, n);
	crc = crc32_le_raw(crc, pkt + n, len - n);
	return ~crc;
}

uint32_t roce_icrc4(const uint8_t *pkt, size_t len)
{
	return roce_icrc(pkt, len, 20);
}

uint32_t roce_icrc6(const uint8_t *pkt, size_t len)
{
	return roce_icrc(pkt, len, 40);
}
