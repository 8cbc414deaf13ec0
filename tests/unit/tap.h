/*
 * The TAP output of the unit programs (the .c files of tests/unit): one "ok N -
 * description" or "not ok N - description" line per check, counted, so
 * that the program can print its plan and exit 1 when a check failed.
 */
#ifndef KBX_UNIT_TAP_H
#define KBX_UNIT_TAP_H

#include <stdio.h>

static int tests, failures;

static void ok(int cond, const char *desc)
{
	tests++;
	if (!cond)
		failures++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tests, desc);
}

#endif
