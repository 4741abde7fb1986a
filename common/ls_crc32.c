/* ls_crc32.c - table-driven CRC-32, slicing by 4 bytes.
 *
 * Bundles checksum every payload, so a reader walks each stored byte once
 * through here; slicing keeps that well above disk speed without a
 * dependency on zlib.
 */
#include "ls_crc32.h"

static uint32_t crc_table[4][256];
static int crc_ready;

static void crc_init(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[0][i] = c;
	}
	for (i = 0; i < 256; i++) {
		c = crc_table[0][i];
		for (j = 1; j < 4; j++) {
			c = crc_table[0][c & 0xff] ^ (c >> 8);
			crc_table[j][i] = c;
		}
	}
	crc_ready = 1;
}

uint32_t ls_crc32(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t c;

	/* Racing initialisations compute the same table, so a data race
	 * here is benign in practice; callers are single-threaded today. */
	if (!crc_ready)
		crc_init();
	c = ~crc;
	while (len >= 4) {
		c ^= (uint32_t)p[0] | (uint32_t)p[1] << 8 |
		     (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		c = crc_table[3][c & 0xff] ^ crc_table[2][(c >> 8) & 0xff] ^
		    crc_table[1][(c >> 16) & 0xff] ^ crc_table[0][c >> 24];
		p += 4;
		len -= 4;
	}
	while (len--)
		c = crc_table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
	return ~c;
}
