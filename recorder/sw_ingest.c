/* sw_ingest.c - the Valgrind tool's records -> bundle sections. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_buf.h"
#include "ls_err.h"
#include "ls_buildid.h"
#include "recorder/lsc_proto.h"
#include "recorder/sw_ingest.h"

void lsr_ingest_init(struct lsr_ingest *in, struct lsb_writer *w,
		     struct lsr_stats *st, int embed)
{
	memset(in, 0, sizeof(*in));
	in->w = w;
	in->st = st;
	in->embed = embed;
}

void lsr_ingest_release(struct lsr_ingest *in)
{
	size_t i;

	for (i = 0; i < in->nmods; i++)
		free(in->mods[i].path);
	free(in->mods);
	free(in->tids);
	memset(in, 0, sizeof(*in));
}

/* Stream id of a thread; declares the stream on first sight. */
static int stream_of(struct lsr_ingest *in, uint32_t tid, uint32_t *id)
{
	struct lsb_stream s;
	size_t i;
	int err;

	for (i = in->ntids; i-- > 0;) {
		if (in->tids[i].tid == tid) {
			*id = in->tids[i].stream;
			return 0;
		}
	}
	err = LS_GROW(in->tids, in->ntids + 1, in->captids, 16);
	if (err)
		return err;
	memset(&s, 0, sizeof(s));
	s.id = (uint32_t)in->ntids + 1;
	s.kind = LSB_STREAM_THREAD;
	s.pid = in->pid;
	s.tid = tid;
	s.cpu = -1;
	err = lsb_writer_stream(in->w, &s);
	if (err < 0)
		return err;
	in->tids[in->ntids].tid = tid;
	in->tids[in->ntids].stream = s.id;
	in->ntids++;
	in->st->threads++;
	*id = s.id;
	return 0;
}

static void event_init(struct lsr_ingest *in, struct lsb_event *ev,
		       uint16_t type, uint32_t tid, uint64_t seq)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->run = LSB_RUN_TRACE;
	ev->pid = in->pid;
	ev->tid = tid;
	ev->cpu = -1;
	ev->time = seq;
}

/* Writes the module for an image in memory, once per build-id. */
static int add_module(struct lsr_ingest *in, const char *path, uint32_t flags,
		      const void *data, size_t len, struct lsr_modcache *mc)
{
	struct lsb_module m;
	int n, err;

	n = ls_buildid_mem(data, len, mc->build_id, sizeof(mc->build_id));
	if (n < 0)
		return n;
	if (n == 0)	/* linked with --build-id=none: name it by its bytes */
		n = ls_buildid_hash(data, len, mc->build_id);
	mc->build_id_len = (uint8_t)n;
	memset(&m, 0, sizeof(m));
	memcpy(m.build_id, mc->build_id, (size_t)n);
	m.build_id_len = (uint8_t)n;
	m.flags = flags;
	m.file_size = len;
	m.path = path;
	if (in->embed || (flags & LSB_MOD_VDSO))
		m.flags |= LSB_MOD_EMBEDDED;
	else
		data = NULL;
	err = lsb_writer_module(in->w, &m, data, data ? len : 0);
	if (err < 0)
		return err;
	if (err == 0)
		in->st->modules++;
	mc->ok = 1;
	return 0;
}

/* The build-id of an executable file, reading and embedding it the first
 * time the path is seen.  Returns the cache entry, or NULL on ENOMEM. */
static struct lsr_modcache *module_of(struct lsr_ingest *in, const char *path,
				      int *err)
{
	struct lsr_modcache *mc;
	void *data;
	size_t i, len;
	int r;

	*err = 0;
	for (i = 0; i < in->nmods; i++)
		if (!strcmp(in->mods[i].path, path))
			return &in->mods[i];
	*err = LS_GROW(in->mods, in->nmods + 1, in->capmods, 16);
	if (*err)
		return NULL;
	mc = &in->mods[in->nmods];
	memset(mc, 0, sizeof(*mc));
	mc->path = strdup(path);
	if (!mc->path) {
		*err = -LS_ENOMEM;
		return NULL;
	}
	in->nmods++;
	r = ls_map_file(path, &data, &len);
	if (r == 0) {
		r = add_module(in, path, 0, data, len, mc);
		ls_unmap(data, len);
	}
	if (r < 0 && r != -LS_ENOENT && r != -LS_EIO && r != -LS_ELF) {
		*err = r;	/* a writer error: fatal */
		return NULL;
	}
	if (!mc->ok) {
		in->st->missing_modules++;
		if (!in->missing[0])
			snprintf(in->missing, sizeof(in->missing), "%s", path);
	}
	return mc;
}

static const char *payload_str(const uint8_t *p, size_t len)
{
	/* Paths must be NUL-terminated inside the payload. */
	if (!len || memchr(p, '\0', len) == NULL)
		return NULL;
	return (const char *)p;
}

/* The client runs a little of Valgrind's own code: the signal-return
 * trampoline, on a page of the tool binary mapped into the client.  That
 * page, not the 2.6 MB tool, goes into the bundle. */
static int is_tool_binary(const char *path)
{
	const char *base = strrchr(path, '/');

	return base && !strcmp(base + 1, "loopscope-amd64-linux");
}

#define LSR_TRAMPOLINE "[valgrind-trampoline]"

static int tool_page(struct lsr_ingest *in, uint32_t tid,
		     const struct lsw_mmap *mm, const char *path)
{
	struct lsb_module m;
	struct lsb_event ev;
	void *data;
	size_t len;
	int err;

	event_init(in, &ev, LSB_EV_MMAP, tid, mm->seq);
	ev.addr = mm->addr;
	ev.len = mm->len;
	ev.prot = mm->prot;
	ev.name = LSR_TRAMPOLINE;
	if (ls_map_file(path, &data, &len) == 0) {
		if (mm->pgoff < len && mm->len <= len - mm->pgoff) {
			memset(&m, 0, sizeof(m));
			m.build_id_len = (uint8_t)ls_buildid_hash(
				(uint8_t *)data + mm->pgoff, mm->len, m.build_id);
			m.flags = LSB_MOD_VDSO;
			m.file_size = mm->len;
			m.path = LSR_TRAMPOLINE;
			err = lsb_writer_module(in->w, &m, (uint8_t *)data + mm->pgoff,
						mm->len);
			if (err < 0) {
				ls_unmap(data, len);
				return err;
			}
			in->st->modules += err == 0;
			memcpy(ev.build_id, m.build_id, m.build_id_len);
			ev.build_id_len = m.build_id_len;
		}
		ls_unmap(data, len);
	}
	return lsb_writer_event(in->w, &ev);
}

static int on_mmap(struct lsr_ingest *in, uint32_t tid, const uint8_t *p,
		   size_t len)
{
	struct lsw_mmap mm;
	struct lsb_event ev;
	const char *path;
	int err = 0;

	if (len < sizeof(mm))
		return -LS_ECORRUPT;
	memcpy(&mm, p, sizeof(mm));
	path = payload_str(p + sizeof(mm), len - sizeof(mm));
	if (!path)
		return -LS_ECORRUPT;
	/* The vDSO's event is written with its bytes (LSW_MEMDUMP). */
	if (!strcmp(path, "[vdso]"))
		return 0;
	if ((mm.prot & 4) && is_tool_binary(path))
		return tool_page(in, tid, &mm, path);
	event_init(in, &ev, LSB_EV_MMAP, tid, mm.seq);
	ev.addr = mm.addr;
	ev.len = mm.len;
	ev.pgoff = mm.pgoff;
	ev.prot = mm.prot;
	ev.name = path;
	if ((mm.prot & 4) && path[0] == '/') {
		struct lsr_modcache *mc = module_of(in, path, &err);

		if (!mc)
			return err;
		if (mc->ok) {
			memcpy(ev.build_id, mc->build_id, mc->build_id_len);
			ev.build_id_len = mc->build_id_len;
		}
	}
	return lsb_writer_event(in->w, &ev);
}

static int on_memdump(struct lsr_ingest *in, uint32_t tid, const uint8_t *p,
		      size_t len)
{
	struct lsw_memdump md;
	struct lsr_modcache mc;
	struct lsb_event ev;
	int err;

	if (len <= sizeof(md))
		return -LS_ECORRUPT;
	memcpy(&md, p, sizeof(md));
	memset(&mc, 0, sizeof(mc));
	err = add_module(in, "[vdso]", LSB_MOD_VDSO, p + sizeof(md),
			 len - sizeof(md), &mc);
	if (err < 0 && err != -LS_ENOENT && err != -LS_ELF)
		return err;
	event_init(in, &ev, LSB_EV_MMAP, tid, md.seq);
	ev.addr = md.addr;
	ev.len = len - sizeof(md);
	ev.prot = 5;
	ev.name = "[vdso]";
	memcpy(ev.build_id, mc.build_id, mc.build_id_len);
	ev.build_id_len = mc.build_id_len;
	return lsb_writer_event(in->w, &ev);
}

static int on_record(struct lsr_ingest *in, const struct lsw_hdr *h,
		     const uint8_t *p)
{
	struct lsb_event ev;
	uint32_t sid;
	int err;

	if (!in->hello_seen && h->type != LSW_HELLO)
		return -LS_ECORRUPT;
	switch (h->type) {
	case LSW_HELLO: {
		struct lsw_hello hello;

		if (h->size < sizeof(hello))
			return -LS_ECORRUPT;
		memcpy(&hello, p, sizeof(hello));
		if (hello.magic != LSW_MAGIC || hello.version != LSW_VERSION)
			return -LS_EVERSION;
		in->pid = hello.pid;
		in->hello_seen = 1;
		/* What the tool did, not what it was asked: a reader of the
		 * bundle may rely on it (tests/tools/lsb_percpu.c does). */
		return lsb_writer_meta(in->w, "pt.retcomp",
				       hello.flags & LSW_HELLO_NORETCOMP ? "0" : "1");
	}
	case LSW_THREAD_START:
	case LSW_THREAD_EXIT: {
		struct lsw_thread t;

		if (h->size < sizeof(t))
			return -LS_ECORRUPT;
		memcpy(&t, p, sizeof(t));
		err = stream_of(in, h->tid, &sid);
		if (err)
			return err;
		if (h->type == LSW_THREAD_START) {
			event_init(in, &ev, LSB_EV_THREAD_START, h->tid, t.seq);
			ev.arg = t.parent_tid;
		} else {
			event_init(in, &ev, LSB_EV_THREAD_EXIT, h->tid, t.seq);
			ev.arg = t.status;
			err = lsb_writer_stream_end(in->w, sid);
			if (err < 0)
				return err;
		}
		return lsb_writer_event(in->w, &ev);
	}
	case LSW_MMAP:
		return on_mmap(in, h->tid, p, h->size);
	case LSW_MUNMAP: {
		struct lsw_munmap mu;

		if (h->size < sizeof(mu))
			return -LS_ECORRUPT;
		memcpy(&mu, p, sizeof(mu));
		event_init(in, &ev, LSB_EV_MUNMAP, h->tid, mu.seq);
		ev.addr = mu.addr;
		ev.len = mu.len;
		return lsb_writer_event(in->w, &ev);
	}
	case LSW_MEMDUMP:
		return on_memdump(in, h->tid, p, h->size);
	case LSW_PT:
		err = stream_of(in, h->tid, &sid);
		if (err)
			return err;
		in->st->pt_bytes += h->size;
		return lsb_writer_pt(in->w, sid, p, h->size);
	case LSW_MEMACC:
		err = stream_of(in, h->tid, &sid);
		if (err)
			return err;
		in->st->memacc_bytes += h->size;
		return lsb_writer_memacc(in->w, sid, p, h->size);
	case LSW_EXEC: {
		struct lsw_exec ex;

		if (h->size < sizeof(ex))
			return -LS_ECORRUPT;
		memcpy(&ex, p, sizeof(ex));
		in->exec_seen = 1;
		event_init(in, &ev, LSB_EV_EXEC, h->tid, ex.seq);
		ev.name = payload_str(p + sizeof(ex), h->size - sizeof(ex));
		return lsb_writer_event(in->w, &ev);
	}
	case LSW_FORK: {
		struct lsw_fork fk;

		if (h->size < sizeof(fk))
			return -LS_ECORRUPT;
		memcpy(&fk, p, sizeof(fk));
		event_init(in, &ev, LSB_EV_FORK, h->tid, fk.seq);
		ev.arg = fk.child_pid;
		return lsb_writer_event(in->w, &ev);
	}
	case LSW_SIGNAL: {
		struct lsw_signal sg;

		if (h->size < sizeof(sg))
			return -LS_ECORRUPT;
		memcpy(&sg, p, sizeof(sg));
		event_init(in, &ev, LSB_EV_SIGNAL, h->tid, sg.seq);
		ev.arg = sg.signo;
		ev.addr = sg.ip;
		return lsb_writer_event(in->w, &ev);
	}
	case LSW_END: {
		struct lsw_end end;

		if (h->size < sizeof(end))
			return -LS_ECORRUPT;
		memcpy(&end, p, sizeof(end));
		in->end_seen = 1;
		in->exit_status = end.exit_status;
		in->st->tool_lost += end.lost;
		return 0;
	}
	default:
		/* Newer tools may add record types; skip what we do not know. */
		return 0;
	}
}

int lsr_ingest_feed(struct lsr_ingest *in, const uint8_t *buf, size_t len,
		    size_t *used)
{
	size_t off = 0;
	int err = 0;

	while (len - off >= sizeof(struct lsw_hdr)) {
		struct lsw_hdr h;

		memcpy(&h, buf + off, sizeof(h));
		if (h.size > LSW_MAX_PAYLOAD) {
			snprintf(in->errmsg, sizeof(in->errmsg),
				 "record of type %u at stream offset %zu declares %u bytes (limit %u)",
				 h.type, off, h.size, LSW_MAX_PAYLOAD);
			err = -LS_ECORRUPT;
			break;
		}
		if (len - off - sizeof(h) < h.size)
			break;
		err = on_record(in, &h, buf + off + sizeof(h));
		if (err < 0) {
			if (!in->errmsg[0])
				snprintf(in->errmsg, sizeof(in->errmsg),
					 "bad record of type %u (%u bytes): %s",
					 h.type, h.size, ls_errstr(err));
			break;
		}
		in->st->records++;
		off += sizeof(h) + h.size;
	}
	*used = off;
	return err;
}

const char *lsr_ingest_errmsg(const struct lsr_ingest *in)
{
	return in ? in->errmsg : "";
}
