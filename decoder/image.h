/* image.h - the memory image of a recorded process, from a bundle.
 *
 * Executable mappings come from the bundle's mmap events; their bytes from
 * the embedded modules, matched by build-id.  libipt reads them as file
 * sections through a pt_image_section_cache (its block cache then works):
 * an embedded module is written once to a cache directory named by its
 * build-id ($LOOPSCOPE_CACHE, else $XDG_CACHE_HOME/loopscope, else
 * ~/.cache/loopscope), as perf's build-id cache does.  Where no file can
 * be had, libipt reads through pt_image_set_callback() instead.
 */
#ifndef LSD_IMAGE_H
#define LSD_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "formats/bundle.h"

struct pt_image;

struct lsd_mapping {
	uint64_t start, end;		/* [start, end) */
	uint64_t pgoff;
	size_t module;			/* index into lsd_image.mods */
};

struct lsd_module_bytes {
	void *data;			/* NULL if not found */
	size_t len;
	int mapped;			/* data is a file mapping, not malloc'd */
	int borrowed;			/* data is another decoder's (a twin's
					 * modules: lsd_image_build_all_from()) */
	char *file;			/* a file with these bytes, for libipt */
	uint32_t crc;			/* the CRC-32 of data, where has_crc */
	int has_crc;			/* (known: the build-id cache's copy) */
};

struct lsd_image {
	uint32_t pid;			/* the process */
	int borrowed;			/* mods and iscache belong to another image */
	struct lsd_mapping *maps;	/* sorted by start, disjoint */
	size_t nmaps, capmaps;
	struct lsd_module_bytes *mods;	/* one per bundle module */
	size_t nmods;
	uint64_t missing;		/* exec mappings without bytes */
	struct pt_image *pt;		/* libipt's image: file sections from the
					 * section cache, our reads elsewhere */
	struct pt_image_section_cache *iscache;
	uint64_t cached;		/* mappings libipt reads from files */
	char errmsg[512];		/* why the build failed */
};

/* Builds the image of process PID (0: the first process seen) of run RUN
 * from the bundle.  Modules the bundle only references (recorded with
 * --no-embed) are read from their recorded path, or from DEBUG_DIR/path or
 * DEBUG_DIR/basename when debug_dir is set, if the file's build-id is the
 * recorded one, else from the debuginfod servers of DEBUGINFOD_URLS
 * (lsd_modfile_find()).  Returns -LS_ENOMEM, a reader error, or -LS_EBUILDID when
 * the only files found have another build-id (img->errmsg names both). */
int lsd_image_build_dir(struct lsd_image *img, struct lsb_reader *r,
			uint32_t pid, int run, const char *debug_dir);
/* The images of every process of run RUN (one per pid of the sideband, a
 * forked child starting from its parent's mappings), in the order the
 * processes appear; at least one.  They share the module bytes and one
 * pt_image_section_cache, owned by (*imgs)[0].  errmsg (may be NULL) gets
 * why the build failed. */
int lsd_image_build_all(struct lsd_image **imgs, size_t *n, struct lsb_reader *r,
			int run, const char *debug_dir, char *errmsg, size_t errlen);
/* lsd_image_build_all() with the module bytes of FROM (an image that
 * lsd_image_build_all() made of the same bundle, for another decoder;
 * NULL: none), read and checked there: none read again.  FROM must
 * outlive the images (a twin's first decoder does).  Returns what
 * lsd_image_build_all() returns. */
int lsd_image_build_all_from(struct lsd_image **imgs, size_t *n, struct lsb_reader *r,
			     int run, const char *debug_dir, const struct lsd_image *from,
			     char *errmsg, size_t errlen);
/* Unmaps every section no live decoder holds, so that the next decoder
 * starts with cold block caches: libipt 2.0.5 decodes some damaged
 * streams otherwise with a block cached than without (an indirect branch
 * whose TIP is suppressed resumes at the branch), so a chunk's losses
 * would depend on what was decoded before it (a second decode, the fast
 * path's chunks, chunk by chunk).  Called before each chunk libipt
 * decodes; within a chunk the caches stay warm.  Never fails. */
void lsd_image_cold(const struct lsd_image *img);
/* Releases the images of lsd_image_build_all() and frees the array. */
void lsd_image_release_all(struct lsd_image *imgs, size_t n);
/* lsd_image_build_dir() without a debug directory. */
int lsd_image_build(struct lsd_image *img, struct lsb_reader *r,
		    uint32_t pid, int run);
void lsd_image_release(struct lsd_image *img);
/* Copies up to size bytes at ip; returns the count, or -LS_ENOENT if no
 * mapping holds ip or its module's bytes end before it. */
int lsd_image_read(const struct lsd_image *img, uint8_t *buf, size_t size,
		   uint64_t ip);

/* The build-id cache directory ($LOOPSCOPE_CACHE, else
 * $XDG_CACHE_HOME/loopscope, else ~/.cache/loopscope), created; dir gets
 * "" if there is none. */
void lsd_image_cache_dir(char *dir, size_t len);
/* The path of a file of the build-id cache: DIR/<build-id hex><suffix>
 * (the heads and entries sweeps).  Returns 0, or -LS_ENOENT when there is
 * no cache directory or build-id, or the path does not fit len. */
int lsd_image_cache_path(const uint8_t *bid, size_t n, const char *suffix,
			 char *path, size_t len);

/* The module index and file offset of ip.  Returns 0, or -LS_ENOENT if
 * unmapped. */
int lsd_image_locate(const struct lsd_image *img, uint64_t ip, size_t *module,
		     uint64_t *file_off);

#endif
