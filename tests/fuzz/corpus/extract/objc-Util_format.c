#include <stdio.h>
#include "format.h"

static char buf[64];

static const char *trim(const char *s)
{
	return s;
}

const char *format_price(double price)
{
	snprintf(buf, sizeof buf, "%.2f", price);
	return trim(buf);
}
