/* ls_buildid.h - GNU build-ids of ELF images and files, read with libelf. */
#ifndef LS_BUILDID_H
#define LS_BUILDID_H

#include <stddef.h>
#include <stdint.h>

/* Copies the NT_GNU_BUILD_ID note of the ELF image [data, data+len) into
 * out (at most cap bytes).  Returns its length, 0 if the image has none,
 * -LS_ELF if it is not a valid ELF image, -LS_EINVAL for bad arguments. */
int ls_buildid_mem(const void *data, size_t len, uint8_t *out, size_t cap);

/* Copies the NT_GNU_BUILD_ID note of the ELF file PATH into out (at most
 * cap bytes).  Returns the id's length (> 0), 0 if the file has none,
 * -LS_ENOENT if PATH does not exist, -LS_EIO if it cannot be read,
 * -LS_ELF if it is not an ELF file, -LS_EINVAL for bad arguments. */
int ls_buildid_file(const char *path, uint8_t *out, size_t cap);

/* A build-id for bytes that carry none: 16 bytes from two FNV-1a 64-bit
 * hashes, stable for the same bytes.  Returns 16. */
int ls_buildid_hash(const void *data, size_t len, uint8_t out[16]);

/* Maps PATH read-only; *data and *len describe it until ls_unmap().
 * Returns -LS_ENOENT, -LS_EIO. */
int ls_map_file(const char *path, void **data, size_t *len);
void ls_unmap(void *data, size_t len);

#endif
