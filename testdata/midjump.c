/* midjump.c - a branch into the middle of an earlier-executed block.
 * midjump_run(5): the code from midjump_a runs once from the top (add $1,
 * then falls into midjump_b); the loop's back branch jumps to midjump_b,
 * which is in the middle of that first block.  Hand count, n = 5:
 *   block [midjump_a]            1 instruction (add $1), executed once;
 *   block [midjump_b .. jl]      4 instructions, executed 5 times.
 * Returns 1 + 2 * 5 = 11. */
#include <stdio.h>

long midjump_run(long n);

__asm__(".text\n"
	".globl midjump_run\n"
	".type midjump_run, @function\n"
	"midjump_run:\n"
	"	xor %eax, %eax\n"
	"	xor %ecx, %ecx\n"
	"	jmp midjump_a\n"
	".globl midjump_a\n"
	"midjump_a:\n"
	"	add $1, %rax\n"
	".globl midjump_b\n"
	"midjump_b:\n"
	"	add $2, %rax\n"
	"	inc %rcx\n"
	"	cmp %rdi, %rcx\n"
	"	jl midjump_b\n"
	"	ret\n"
	".size midjump_run, .-midjump_run\n");

int main(void)
{
	printf("%ld\n", midjump_run(5));
	return 0;
}
