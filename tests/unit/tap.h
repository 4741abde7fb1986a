/* tap.h - minimal TAP output for unit tests (header-only). */
#ifndef LS_TAP_H
#define LS_TAP_H

#include <inttypes.h>
#include <stdio.h>

static int tap_n, tap_failed;

#define TAP_OK(cond, ...)                                                 \
	do {                                                              \
		tap_n++;                                                  \
		if (cond) {                                               \
			printf("ok %d - ", tap_n);                        \
		} else {                                                  \
			tap_failed++;                                     \
			printf("not ok %d - %s:%d: ", tap_n, __FILE__,    \
			       __LINE__);                                 \
		}                                                         \
		printf(__VA_ARGS__);                                      \
		putchar('\n');                                            \
	} while (0)

#define TAP_EQ(a, b, ...)                                                 \
	do {                                                              \
		long long tap_a_ = (long long)(a), tap_b_ = (long long)(b); \
		TAP_OK(tap_a_ == tap_b_, __VA_ARGS__);                    \
		if (tap_a_ != tap_b_)                                     \
			printf("#   got %lld, expected %lld\n", tap_a_, tap_b_); \
	} while (0)

#define TAP_DONE() (tap_failed ? 1 : 0)

#endif
