/*
 * Learned word vectors, private to lib/embed/ (and to the tests and
 * measurements of the builtin embedding).  See words.c.
 */
#ifndef KBX_EMBED_WORDS_H
#define KBX_EMBED_WORDS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct _kbx_words;

/* Map the file at path; -1 with a message when it cannot be read or is
 * not a word-vector file of this kbx. */
int _kbx_words_open(const char *path, struct _kbx_words **out, char *msg, size_t msgsz);
/* Find the installed file (KBX_WORDS_PATH, build/ beside the program,
 * the data directory) and map it; -1 with a message as above. */
int _kbx_words_load(struct _kbx_words **out, char *msg, size_t msgsz);
void _kbx_words_close(struct _kbx_words *w);

uint32_t _kbx_words_dim(const struct _kbx_words *w);
/* 16 hex digits naming the model (of its SHA-256). */
const char *_kbx_words_name(const struct _kbx_words *w);

/* The index of a token (as the search tokenizer gives it), or -1. */
long _kbx_words_find(const struct _kbx_words *w, const char *tok, size_t len);
/* Its weight: a / (a + p(word)). */
float _kbx_words_weight(const struct _kbx_words *w, long i);
/* acc[0..dim) += k * the word's vector. */
void _kbx_words_add(const struct _kbx_words *w, long i, float k, float *acc);
/* Take the direction every text shares out of acc. */
void _kbx_words_finish(const struct _kbx_words *w, float *acc);
/* Word i's text (not NUL-terminated) and its length; "" and 0 where
 * the file is damaged. */
const char *_kbx_words_word(const struct _kbx_words *w, long i, size_t *len);
/* Up to k words nearest word i by cosine, at least min_cos, best first,
 * into idx[] and cos[]; returns how many. */
size_t _kbx_words_near(const struct _kbx_words *w, long i, size_t k, float min_cos, long *idx,
		       float *cos);

#endif
