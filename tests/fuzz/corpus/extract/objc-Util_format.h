#ifndef FORMAT_H
#define FORMAT_H

/* Plain C, called from Objective-C. */
const char *format_price(double price);

#endif
