/* elf_buildid.h - GNU build-id of an ELF file, read with libelf. */
#ifndef LSR_ELF_BUILDID_H
#define LSR_ELF_BUILDID_H

#include <stddef.h>
#include <stdint.h>

/* Copies the NT_GNU_BUILD_ID note of the ELF file PATH into out (at most
 * cap bytes; a longer id is cut to cap).  Returns the id's length (> 0),
 * 0 if the file has no build-id note, -LS_ENOENT if PATH does not exist,
 * -LS_EIO if it cannot be read, -LS_ELF if it is not an ELF file,
 * -LS_EINVAL for bad arguments. */
int lsr_elf_build_id(const char *path, uint8_t *out, size_t cap);

#endif
