/* ls_crc32.h - CRC-32 (IEEE 802.3, the polynomial of zlib and PNG). */
#ifndef LS_CRC32_H
#define LS_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continues a CRC: start with crc = 0.  ls_crc32(ls_crc32(0, a), b) is the
 * CRC of a followed by b, so payloads written in pieces can be checked in
 * one go.  ls_crc32(0, "123456789", 9) == 0xcbf43926. */
uint32_t ls_crc32(uint32_t crc, const void *data, size_t len);
/* The same by the tables alone, whatever the CPU has (for tests). */
uint32_t ls_crc32_table(uint32_t crc, const void *data, size_t len);

#endif
