#ifndef TEXTKIT_H
#define TEXTKIT_H

int text_length(const char *s);
void text_copy(char *dst, const char *src);
unsigned text_hash(const char *s);

#endif
