/* fig1.c - the control-flow graph of Eichenberger and Lobo's figure 1
 * (PACT'98), with counts known by hand, and two more shapes for edge
 * profiling plans (t0710): a lone self-loop and critical edges.
 *
 * The functions are written in assembly so that their static blocks are
 * exactly the figure's vertices (gcc would merge or reorder them).
 *
 * fig1(x, n), blocks in address order v1 v2 v4 v5 v3 v6:
 *   v1: x & 1 ?  fall to v2 (e12)  : taken to v3 (e13)
 *   v2: x & 2 ?  taken to v5 (e25) : fall to v4 (e24)
 *   v4: jump to v6 (e46)
 *   v5: jump to v6 (e56)
 *   v3: --n != 0 ? taken to v3 (e33, the self-loop) : fall to v6 (e36)
 *   v6: return
 * main calls fig1(i % 10, 3) for i = 0 .. 99:
 *   x = 1, 5, 9 (odd, bit 1 clear)  ->  v2 then v4:  3 of every 10
 *   x = 3, 7    (odd, bit 1 set)    ->  v2 then v5:  2 of every 10
 *   x = 0, 2, 4, 6, 8 (even)        ->  v3:          5 of every 10
 * so over 100 calls: IN = OUT = 100, e12 = 50, e13 = 50, e24 = 30,
 * e25 = 20, e46 = 30, e56 = 20; v3 runs n = 3 times per entry: 150
 * executions, e33 = 100 (2 per entry), e36 = 50; v6 runs 100 times.
 *
 * selfloop(n): s0: jump to s1;  s1: --n != 0 ? back to s1 : fall to s2;
 * s2: return.  main calls selfloop(7) 4 times: s0 and s2 run 4 times,
 * s1 28 times, s1->s1 24, s1->s2 4.
 *
 * crit(x): c1: x & 1 ? fall to c2 : taken to c3   (c1->c3 is critical:
 *          c2: x & 2 ? fall to c3 : taken to c4    c1 has two outputs,
 *          c3: x & 4 ? fall to c4 : taken to c5    c3 two inputs; and so
 *          c4: jump to c5                           c2->c4, c3->c5)
 *          c5: return
 * main calls crit(i) for i = 0 .. 39:
 *   c1: odd i (20) fall to c2, even i (20) taken to c3;
 *   c2 (odd i): i & 2 set (i = 3, 7, ..., 39: 10) taken to c4, else
 *       (i = 1, 5, ..., 37: 10) fall to c3;
 *   c3 (30: the 20 even i and the 10 odd i with bit 1 clear): i & 4 set
 *       -> fall to c4: even i with bit 2 set: 4,6,12,14,20,22,28,30,36,38
 *       (10) plus odd i = 5, 13, 21, 29, 37 (5) = 15; else taken to c5: 15;
 *   c4: 10 + 15 = 25 -> c5;  c5: 15 + 25 = 40 returns.
 */
#include <stdio.h>

int fig1(int x, int n);
int selfloop(int n);
int crit(int x);

__asm__(
	".text\n"
	".globl fig1\n"
	".type fig1, @function\n"
	"fig1:\n"
	"	xorl %eax, %eax\n"		/* v1 */
	"	testl $1, %edi\n"
	"	jz .Lf1_v3\n"
	"	testl $2, %edi\n"		/* v2 */
	"	jnz .Lf1_v5\n"
	"	addl $4, %eax\n"		/* v4 */
	"	jmp .Lf1_v6\n"
	".Lf1_v5:\n"
	"	addl $5, %eax\n"		/* v5 */
	"	jmp .Lf1_v6\n"
	".Lf1_v3:\n"
	"	addl $3, %eax\n"		/* v3 */
	"	decl %esi\n"
	"	jnz .Lf1_v3\n"
	".Lf1_v6:\n"
	"	ret\n"				/* v6 */
	".size fig1, .-fig1\n"

	".globl selfloop\n"
	".type selfloop, @function\n"
	"selfloop:\n"
	"	xorl %eax, %eax\n"
	"	jmp .Lsl_s1\n"
	".Lsl_s1:\n"
	"	incl %eax\n"			/* s1 */
	"	decl %edi\n"
	"	jnz .Lsl_s1\n"
	"	ret\n"				/* s2 */
	".size selfloop, .-selfloop\n"

	".globl crit\n"
	".type crit, @function\n"
	"crit:\n"
	"	xorl %eax, %eax\n"		/* c1 */
	"	testl $1, %edi\n"
	"	jz .Lcr_c3\n"
	"	testl $2, %edi\n"		/* c2 */
	"	jnz .Lcr_c4\n"
	".Lcr_c3:\n"
	"	testl $4, %edi\n"		/* c3 */
	"	jz .Lcr_c5\n"
	".Lcr_c4:\n"
	"	incl %eax\n"			/* c4 */
	"	jmp .Lcr_c5\n"
	".Lcr_c5:\n"
	"	ret\n"				/* c5 */
	".size crit, .-crit\n"
);

int main(void)
{
	int i, s = 0;

	for (i = 0; i < 100; i++)
		s += fig1(i % 10, 3);
	for (i = 0; i < 4; i++)
		s += selfloop(7);
	for (i = 0; i < 40; i++)
		s += crit(i);
	printf("%d\n", s);
	return 0;
}
