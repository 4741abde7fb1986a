/* gotonest.c KX KY KZ - three back edges to one header, built with goto.
 *
 * H is a self loop (back edge X), then block b goes back (Y), then block
 * c (Z): the natural loops are X = {H} within Y = {H, b} within
 * Z = {H, b, c} (no code on the way back, so each back edge leaves its
 * test block directly).  H runs N = KX * KY * KZ times, t counting 1..N;
 * X is taken unless KX divides t: N - N / KX = (KX - 1) * KY * KZ times;
 * Y is tested N / KX times and taken unless KY divides t / KX:
 * (KY - 1) * KZ times; Z is tested KZ times and taken KZ - 1 times. */
#include <stdlib.h>

static volatile long sink;

static void nest(long kx, long ky, long kz)
{
	long t = 0, n = kx * ky * kz;

H:
	sink = t;
	if (++t % kx != 0)
		goto H;
	if (t / kx % ky != 0)
		goto H;
	if (t < n)
		goto H;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	nest(atol(argv[1]), atol(argv[2]), atol(argv[3]));
	return 0;
}
