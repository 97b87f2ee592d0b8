/*
 * The RoCEv2 invariant CRC (IBA A17.3.3, "ICRC"): a CRC-32 (the Ethernet
 * polynomial, reflected) over the IP header, the UDP header and the whole
 * IB transport packet, with the fields that routers may change masked to
 * all ones, as if an 8-byte LRH of all ones came first.  On the wire it
 * follows the payload (and pad) as a little-endian 32-bit value.
 */
#ifndef ROCE_FUZZ_ICRC_H
#define ROCE_FUZZ_ICRC_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 update without pre/post inversion (Linux's crc32_le()). */
uint32_t crc32_le_raw(uint32_t crc, const void *buf, size_t len);

/* The CRC state after the 8 masked LRH bytes (0xff) from ~0. */
#define ROCE_ICRC_SEED 0xdebb20e3u

/*
 * The ICRC of a RoCEv2 IPv4 packet: pkt points at the IPv4 header (20
 * bytes, no options), len is the number of bytes from there up to, not
 * including, the ICRC field.  Masked: IPv4 TOS, TTL and header checksum,
 * the UDP checksum and BTH byte 4 (FECN, BECN, resv6a).
 */
uint32_t roce_icrc4(const uint8_t *pkt, size_t len);

/* The same for IPv6 (40-byte header): traffic class, flow label, hop
 * limit, UDP checksum and BTH byte 4 masked. */
uint32_t roce_icrc6(const uint8_t *pkt, size_t len);

#endif
