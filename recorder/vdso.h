/* vdso.h - the bytes of this process's vDSO. */
#ifndef LSR_VDSO_H
#define LSR_VDSO_H

#include <stddef.h>
#include <stdint.h>

/* Finds [vdso] in /proc/self/maps and copies it into a malloc'd buffer
 * the caller frees; *addr gets its start address.  The kernel maps the
 * same vDSO image into every process, so this is also the image a traced
 * child ran (at its own address).  Returns 0, -LS_ENOENT if there is no
 * vDSO, -LS_EIO if maps cannot be read, -LS_ELIMIT if it is over 1 MiB,
 * -LS_ENOMEM. */
int lsr_vdso_read(void **data, size_t *len, uint64_t *addr);

#endif
