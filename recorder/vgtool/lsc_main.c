/* lsc_main.c - placeholder, replaced by the real tool. */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

static void lsc_post_clo_init(void) { }

static IRSB *lsc_instrument(VgCallbackClosure *closure, IRSB *bb,
			    const VexGuestLayout *layout,
			    const VexGuestExtents *vge,
			    const VexArchInfo *archinfo_host,
			    IRType gWordTy, IRType hWordTy)
{
	return bb;
}

static void lsc_fini(Int exitcode) { }

static void lsc_pre_clo_init(void)
{
	VG_(details_name)("loopscope");
	VG_(details_version)("0.1");
	VG_(details_description)("records control flow as Intel PT");
	VG_(details_copyright_author)("loopscope authors");
	VG_(details_bug_reports_to)("loopscope issues");
	VG_(basic_tool_funcs)(lsc_post_clo_init, lsc_instrument, lsc_fini);
}

VG_DETERMINE_INTERFACE_VERSION(lsc_pre_clo_init)
