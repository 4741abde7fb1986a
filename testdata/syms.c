/* syms.c - function symbols that nest and alias, for the symbolizer's
 * choice (decoder/symtab.c): outer is 32 bytes and holds inner, 8 bytes at
 * outer+8; b_glob (global), a_weak (weak) and a_loc (local) name the
 * same 8 bytes, as do the two globals d_two and c_two.  Expected: the
 * innermost sized symbol wins, then global over weak over local, then the
 * fewest leading underscores, then the first name in byte order (c_two). */
__asm__(
	"	.text\n"
	"	.globl outer\n	.type outer, @function\n"
	"outer:\n	.fill 8, 1, 0x90\n"
	"	.type inner, @function\n"
	"inner:\n	.fill 8, 1, 0x90\n	.size inner, 8\n"
	"	.fill 15, 1, 0x90\n	ret\n	.size outer, .-outer\n"
	"	.globl b_glob\n	.type b_glob, @function\n"
	"	.weak a_weak\n	.type a_weak, @function\n"
	"	.type a_loc, @function\n"
	"b_glob:\na_weak:\na_loc:\n	.fill 7, 1, 0x90\n	ret\n"
	"	.size b_glob, 8\n	.size a_weak, 8\n	.size a_loc, 8\n"
	"	.globl d_two\n	.type d_two, @function\n"
	"	.globl c_two\n	.type c_two, @function\n"
	"d_two:\nc_two:\n	.fill 7, 1, 0x90\n	ret\n"
	"	.size d_two, 8\n	.size c_two, 8\n");

void outer(void);
void b_glob(void);
void c_two(void);

int main(void)
{
	outer();
	b_glob();
	c_two();
	return 0;
}
