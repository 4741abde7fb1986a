/* start.h - the entry of the static templates without libc (snest.c,
 * skern.c): the stack aligned as the ABI wants at a call, main's value to
 * exit(2).  Included last, where each had it. */
__asm__(".globl _start\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	and $-16, %rsp\n"
	"	call main\n"
	"	mov %eax, %edi\n"
	"	mov $60, %eax\n"
	"	syscall\n"
	"	hlt\n");
