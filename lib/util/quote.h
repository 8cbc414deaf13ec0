/*
 * Text from a repository made safe to print: file names, symbol names,
 * headings and code are untrusted, and a terminal obeys the control
 * characters in them (an OSC title, ESC[2J, an OSC 52 clipboard write),
 * while a newline in a path breaks one-result-per-line output.  Pure
 * functions into a strbuf: the caller prints.
 *
 * What counts as a control character here: the C0 bytes 0x00-0x1f, DEL
 * (0x7f), and the C1 controls U+0080-U+009F, whether written as UTF-8
 * (0xc2 0x80-0x9f) or as single raw bytes 0x80-0x9f.  A byte that does
 * not belong to a well-formed UTF-8 sequence (overlong forms, surrogates
 * and code points above U+10FFFF are not well-formed) is escaped too, so
 * what these functions write is always valid UTF-8 with no control
 * character but the ones a flag keeps.
 *
 * The escapes are C's: \t, \n and \r, and \ooo (three octal digits) for
 * every other byte, one escape per byte (ESC is \033, BEL \007, a raw
 * 0x9b \233, U+009B \302\233).
 */
#ifndef KBX_QUOTE_H
#define KBX_QUOTE_H

#include <stddef.h>

#include "util/strbuf.h"

/* The length of the well-formed UTF-8 sequence that starts s (1 for an
 * ASCII byte), or 0 when none does; len is what is left of the text. */
size_t utf8_char_len(const char *s, size_t len);

/* Flags of strbuf_add_escaped and escape_needed. */
#define ESCAPE_KEEP_TAB     0x01  /* a tab stays a tab (lines of code) */
#define ESCAPE_KEEP_NEWLINE 0x02  /* \n stays (a consumer that escapes it itself) */

/*
 * Append len bytes of s to sb with every control character and every
 * byte outside valid UTF-8 escaped, except a tab or a newline that flags
 * keep; everything else, backslashes included, is copied as it is.  So
 * ordinary text comes out unchanged, and escaping twice changes nothing
 * more; the escaped form cannot be read back (a name may hold "\033"
 * itself): machine formats use JSON or strbuf_add_quoted_path instead.
 */
void strbuf_add_escaped(struct strbuf *sb, const char *s, size_t len, unsigned flags);
/* Would strbuf_add_escaped change s? */
int escape_needed(const char *s, size_t len, unsigned flags);

/*
 * Append the path s as it is when it is ordinary, else in double quotes
 * with C escapes, as git's quote_path does: a path needs quoting when it
 * holds a control character, a byte outside valid UTF-8, '"', '\' or
 * ':'.  Inside the quotes '"' and '\' are \" and \\, tab, newline and
 * CR are \t, \n and \r, and every other byte that made the path unusual
 * (':' included, so that the first ':' after a quoted path ends it) is
 * \ooo.  Reading the C escapes back gives the path again.
 */
void strbuf_add_quoted_path(struct strbuf *sb, const char *s, size_t len);
/* Would strbuf_add_quoted_path quote s? */
int quote_path_needed(const char *s, size_t len);

#endif
