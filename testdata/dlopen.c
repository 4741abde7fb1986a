/* dlopen.c - loads libdlk.so (built next to this program) with dlopen and
 * calls its loop: dlk_sum(40) runs 40 iterations. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 16);
	char *slash;
	void *h;
	long (*sum)(int);

	if (n <= 0)
		return 1;
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash + 1, "libdlk.so");
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	sum = (long (*)(int))dlsym(h, "dlk_sum");
	if (!sum)
		return 1;
	printf("%ld\n", sum(40));
	dlclose(h);
	return 0;
}
