/*
 * What the fuzz harnesses share.  Each tests/fuzz/<name>.c defines
 * LLVMFuzzerTestOneInput (and may define LLVMFuzzerInitialize); it is
 * linked either with clang's libFuzzer (make fuzz) or with replay.c, a
 * plain main() that feeds it files (make check, tests/t7200).
 *
 * A harness checks what the code promises, not only that it does not
 * crash: FUZZ_ASSERT aborts with the failed condition, which both
 * libFuzzer and the replay runner report as a crash.
 */
#ifndef KBX_FUZZ_H
#define KBX_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_ASSERT(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort(); \
		} \
	} while (0)

#endif
