/*
 * The http embedding provider: an OpenAI-compatible endpoint (OpenAI,
 * Ollama, llama.cpp's server, vLLM, text-embeddings-inference...).
 *
 * Protocol: POST {url}/v1/embeddings with
 *
 *     {"model": MODEL, "input": [TEXT, ...]}
 *
 * and "Authorization: Bearer KEY" when a key variable is configured; the
 * answer is
 *
 *     {"data": [{"embedding": [NUMBER, ...], "index": I}, ...]}
 *
 * with one item per text, in any order (index says which; without index
 * the position does).  The URL may be given as "http://host:port",
 * ".../v1" or the whole ".../v1/embeddings".  Texts go cfg->batch to a
 * request, on one connection kept for the provider's life.  A request is
 * tried again, cfg->retries times at most, after a connection error, a
 * time-out, 429 or 5xx, waiting 250 ms, then twice as long each time, or
 * what the server's Retry-After says; any other 4xx fails at once.  An
 * error answer's {"error": {"message": ...}} (or {"error": "..."}) is
 * quoted in the message.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>
#include <jansson.h>

#include "internal.h"

#define BACKOFF_FIRST_MS 250
#define BACKOFF_MAX_MS 30000
#define RETRY_AFTER_MAX_MS 120000
#define ANSWER_MAX (512u << 20)

struct http {
	struct kbx_embed_provider base;
	CURL *curl;
	struct curl_slist *headers;
	char *url;
	char *model;
	char *query_prefix, *doc_prefix;
	uint32_t cfg_dim, batch, timeout_ms, retries;
	struct strbuf answer;
	long retry_after_ms;    /* from the last answer; -1: none */
	char curl_err[CURL_ERROR_SIZE];
};

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

/* The endpoint's URL from what the user wrote. */
static char *endpoint(const char *url)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = strlen(url);

	while (len && url[len - 1] == '/')
		len--;
	strbuf_add(&sb, url, len);
	if (len >= 14 && !strcmp(strbuf_str(&sb) + len - 14, "/v1/embeddings"))
		;
	else if (len >= 11 && !strcmp(strbuf_str(&sb) + len - 11, "/embeddings"))
		;
	else if (len >= 3 && !strcmp(strbuf_str(&sb) + len - 3, "/v1"))
		strbuf_addstr(&sb, "/embeddings");
	else
		strbuf_addstr(&sb, "/v1/embeddings");
	if (sb.failed) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
	struct http *h = userp;
	size_t n = size * nmemb;

	if (h->answer.len + n > ANSWER_MAX)
		return 0;       /* curl fails with CURLE_WRITE_ERROR */
	strbuf_add(&h->answer, data, n);
	return h->answer.failed ? 0 : n;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *userp)
{
	struct http *h = userp;
	size_t n = size * nmemb;
	static const char name[] = "retry-after:";
	char value[128];
	size_t vlen;
	char *end;
	long secs;

	if (n <= sizeof(name) - 1 || strncasecmp(data, name, sizeof(name) - 1))
		return n;
	vlen = n - (sizeof(name) - 1);
	if (vlen >= sizeof(value))
		return n;
	memcpy(value, data + sizeof(name) - 1, vlen);
	value[vlen] = '\0';
	while (vlen && strchr(" \t\r\n", value[vlen - 1]))
		value[--vlen] = '\0';
	errno = 0;
	secs = strtol(value, &end, 10);
	if (end != value && !*end && !errno && secs >= 0) {
		h->retry_after_ms = secs > RETRY_AFTER_MAX_MS / 1000 ? RETRY_AFTER_MAX_MS
								   : secs * 1000;
	} else {
		/* an HTTP date */
		time_t when = curl_getdate(value + strspn(value, " \t"), NULL);

		if (when > 0) {
			time_t delta = when - time(NULL);

			h->retry_after_ms = delta <= 0 ? 0
				: delta > RETRY_AFTER_MAX_MS / 1000 ? RETRY_AFTER_MAX_MS
				: (long)delta * 1000;
		}
	}
	return n;
}

kbx_status_t _kbx_http_open(const struct kbx_embed_config *cfg,
			    struct kbx_embed_provider **out, struct kbx_error *err)
{
	struct http *h = calloc(1, sizeof(*h));
	struct strbuf auth = STRBUF_INIT;
	struct curl_slist *l;

	*out = NULL;
	if (!h)
		return _kbx_emb_fail(err, KBX_ERR_NOMEM, "out of memory");
	h->base.is_http = 1;
	strbuf_init(&h->answer);

	h->url = endpoint(cfg->url);
	h->model = strdup(cfg->model);
	h->query_prefix = dup_or_null(cfg->query_prefix);
	h->doc_prefix = dup_or_null(cfg->doc_prefix);
	h->cfg_dim = cfg->dim;
	h->batch = cfg->batch;
	h->timeout_ms = cfg->timeout_ms;
	h->retries = cfg->retries;
	if (!h->url || !h->model)
		goto nomem;

	l = curl_slist_append(NULL, "Content-Type: application/json");
	if (l)
		h->headers = l;
	/* no "Expect: 100-continue" wait before large bodies */
	if (l && (l = curl_slist_append(h->headers, "Expect:")))
		h->headers = l;
	if (!l)
		goto nomem;
	if (cfg->key_env && *cfg->key_env) {
		const char *key = getenv(cfg->key_env);

		if (!key || !*key) {
			_kbx_http_close(&h->base);
			return _kbx_emb_fail(err, KBX_ERR_USAGE,
					     "http embedding: the environment variable %s, which should hold the API key for '%s', is %s; export it, or configure no key variable",
					     cfg->key_env, cfg->url, key ? "empty" : "not set");
		}
		strbuf_addf(&auth, "Authorization: Bearer %s", key);
		l = auth.failed ? NULL : curl_slist_append(h->headers, auth.buf);
		strbuf_release(&auth);
		if (!l)
			goto nomem;
		h->headers = l;
	}

	h->curl = curl_easy_init();
	if (!h->curl)
		goto nomem;
	curl_easy_setopt(h->curl, CURLOPT_URL, h->url);
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, h->headers);
	curl_easy_setopt(h->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h->curl, CURLOPT_TIMEOUT_MS, (long)h->timeout_ms);
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, h);
	curl_easy_setopt(h->curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h->curl, CURLOPT_HEADERDATA, h);
	curl_easy_setopt(h->curl, CURLOPT_ERRORBUFFER, h->curl_err);
	curl_easy_setopt(h->curl, CURLOPT_USERAGENT, "kbx");
	curl_easy_setopt(h->curl, CURLOPT_ACCEPT_ENCODING, "");
	/* http and https alone (embed.c checks search.url too), and for
	 * redirects, which are not followed anyway (a redirect is an error
	 * the user sees) */
	curl_easy_setopt(h->curl, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
	if (curl_easy_setopt(h->curl, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
	    curl_easy_setopt(h->curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK)
		goto nomem;
#else
	curl_easy_setopt(h->curl, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	curl_easy_setopt(h->curl, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	*out = &h->base;
	return KBX_OK;
nomem:
	_kbx_http_close(&h->base);
	return _kbx_emb_fail(err, KBX_ERR_NOMEM, "out of memory");
}

void _kbx_http_close(struct kbx_embed_provider *p)
{
	struct http *h = (struct http *)p;

	if (!h)
		return;
	if (h->curl)
		curl_easy_cleanup(h->curl);
	curl_slist_free_all(h->headers);
	free(h->url);
	free(h->model);
	free(h->query_prefix);
	free(h->doc_prefix);
	strbuf_release(&h->answer);
	free(h);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Is a failure of curl itself worth another attempt? */
static int transient(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		return 1;
	default:
		return 0;
	}
}

/* The server's own words in an error answer, or NULL. */
static char *error_message(const struct strbuf *answer)
{
	json_t *root = json_loadb(strbuf_str(answer), answer->len, 0, NULL), *e, *m;
	char *msg = NULL;

	if (!root)
		return NULL;
	e = json_object_get(root, "error");
	m = json_is_object(e) ? json_object_get(e, "message") : e;
	if (json_is_string(m))
		msg = strdup(json_string_value(m));
	else if (!e && json_is_string(json_object_get(root, "message")))
		msg = strdup(json_string_value(json_object_get(root, "message")));
	json_decref(root);
	return msg;
}

/* A short, one-line excerpt of a non-JSON error body. */
static void body_excerpt(const struct strbuf *answer, char *buf, size_t size)
{
	size_t i, j = 0;
	const char *s = strbuf_str(answer);

	for (i = 0; i < answer->len && j + 1 < size && j < 200; i++)
		buf[j++] = (s[i] == '\n' || s[i] == '\r' || s[i] == '\t') ? ' ' : s[i];
	while (j && buf[j - 1] == ' ')
		j--;
	buf[j] = '\0';
}

/* " (after N attempts)" when there was more than one, else "". */
static const char *attempts(char *buf, size_t size, uint32_t attempt)
{
	if (!attempt)
		return "";
	snprintf(buf, size, " (after %u attempts)", attempt + 1);
	return buf;
}

/* POST body; the answer is in h->answer on success. */
static kbx_status_t post(struct http *h, const char *body, size_t len, struct kbx_error *err)
{
	uint32_t attempt;
	long backoff = BACKOFF_FIRST_MS;

	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	for (attempt = 0;; attempt++) {
		int last = attempt >= h->retries;
		long status = 0, wait;
		CURLcode rc;
		char *msg, note[64];

		strbuf_reset(&h->answer);
		h->answer.failed = 0;
		h->retry_after_ms = -1;
		h->curl_err[0] = '\0';
		rc = curl_easy_perform(h->curl);
		if (rc != CURLE_OK) {
			if (h->answer.failed)
				return _kbx_emb_fail(err, KBX_ERR_NOMEM, "out of memory");
			if (!transient(rc) || last) {
				const char *what = h->curl_err[0] ? h->curl_err : curl_easy_strerror(rc);

				if (rc == CURLE_WRITE_ERROR)
					what = "the answer is larger than 512 MB";
				return _kbx_emb_fail(err, KBX_ERR_IO,
						     "http embedding: POST %s: %s%s; check that the server runs and the URL is right",
						     h->url, what, attempts(note, sizeof(note), attempt));
			}
		} else {
			curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
			if (status >= 200 && status < 300)
				return KBX_OK;
			if (last || (status != 429 && status < 500)) {
				char excerpt[256] = "";

				msg = error_message(&h->answer);
				if (!msg)
					body_excerpt(&h->answer, excerpt, sizeof(excerpt));
				_kbx_emb_fail(err, status == 401 || status == 403 ? KBX_ERR_USAGE
										 : KBX_ERR_IO,
					      "http embedding: POST %s: HTTP %ld%s%s%s%s",
					      h->url, status, msg || *excerpt ? ": " : "",
					      msg ? msg : excerpt, attempts(note, sizeof(note), attempt),
					      status == 401 || status == 403
						? "; check the API key" : "");
				free(msg);
				return err ? err->status : KBX_ERR_IO;
			}
		}
		wait = h->retry_after_ms >= 0 ? h->retry_after_ms : backoff;
		sleep_ms(wait);
		backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
	}
}

/* Parse the answer for n texts into rows[0..n) of out (NULL: a probe). */
static kbx_status_t parse_answer(struct http *h, size_t n, const size_t *rows, uint32_t *dim,
				 float *out, struct kbx_error *err)
{
	json_error_t jerr;
	json_t *root, *data, *item;
	unsigned char *seen = NULL;
	kbx_status_t st = KBX_OK;
	size_t i;

	root = json_loadb(strbuf_str(&h->answer), h->answer.len, 0, &jerr);
	if (!root)
		return _kbx_emb_fail(err, KBX_ERR_PARSE,
				     "http embedding: POST %s: the answer is not JSON: %s at line %d, column %d",
				     h->url, jerr.text, jerr.line, jerr.column);
	data = json_object_get(root, "data");
	if (!json_is_array(data)) {
		st = _kbx_emb_fail(err, KBX_ERR_PARSE,
				   "http embedding: POST %s: the answer has no \"data\" array; is this an OpenAI-compatible /v1/embeddings endpoint?",
				   h->url);
		goto out;
	}
	if (json_array_size(data) != n) {
		st = _kbx_emb_fail(err, KBX_ERR_PARSE,
				   "http embedding: POST %s: %zu vectors in the answer for %zu texts",
				   h->url, json_array_size(data), n);
		goto out;
	}
	seen = calloc(n ? n : 1, 1);
	if (!seen) {
		st = _kbx_emb_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto out;
	}
	json_array_foreach(data, i, item) {
		json_t *vec = json_object_get(item, "embedding"), *idx = json_object_get(item, "index");
		size_t at = i, k, len;
		char what[64];
		float *row;

		if (idx) {
			if (!json_is_integer(idx) || json_integer_value(idx) < 0 ||
			    (size_t)json_integer_value(idx) >= n ||
			    seen[json_integer_value(idx)]) {
				st = _kbx_emb_fail(err, KBX_ERR_PARSE,
						   "http embedding: POST %s: item %zu of \"data\" has a bad or repeated \"index\"",
						   h->url, i);
				goto out;
			}
			at = (size_t)json_integer_value(idx);
		}
		seen[at] = 1;
		if (!json_is_array(vec)) {
			st = _kbx_emb_fail(err, KBX_ERR_PARSE,
					   "http embedding: POST %s: item %zu of \"data\" has no \"embedding\" array",
					   h->url, i);
			goto out;
		}
		len = json_array_size(vec);
		snprintf(what, sizeof(what), "vector %zu", at + 1);
		{
			struct strbuf w = STRBUF_INIT;

			strbuf_addf(&w, "POST %s: %s", h->url, what);
			st = _kbx_emb_check_dim("http", strbuf_str(&w), len, dim, h->cfg_dim, err);
			strbuf_release(&w);
		}
		if (st)
			goto out;
		row = out ? out + rows[at] * (size_t)*dim : NULL;
		for (k = 0; k < len; k++) {
			json_t *x = json_array_get(vec, k);

			if (!json_is_number(x)) {
				st = _kbx_emb_fail(err, KBX_ERR_PARSE,
						   "http embedding: POST %s: %s holds something other than a number at %zu",
						   h->url, what, k);
				goto out;
			}
			double v = json_number_value(x);
			if (!_kbx_emb_float_ok(v)) {
				st = _kbx_emb_fail(err, KBX_ERR_PARSE,
						   "http embedding: POST %s: %s holds a number out of a vector's range at %zu (%g)",
						   h->url, what, k, v);
				goto out;
			}
			if (row)
				row[k] = (float)v;
		}
		if (row)
			_kbx_emb_normalize(row, *dim);
	}
out:
	free(seen);
	json_decref(root);
	return st;
}

kbx_status_t _kbx_http_embed(struct kbx_embed_provider *p, size_t n, const char *const *texts,
			     const size_t *lens, int is_query, uint32_t *dim, float *out,
			     struct kbx_error *err)
{
	struct http *h = (struct http *)p;
	const char *prefix = is_query ? h->query_prefix : h->doc_prefix;
	struct strbuf text = STRBUF_INIT;
	size_t *rows = NULL, nrows = 0, i, done;
	kbx_status_t st = KBX_OK;

	if (out)
		memset(out, 0, n * (size_t)*dim * sizeof(*out));
	rows = malloc((n ? n : 1) * sizeof(*rows));
	if (!rows)
		return _kbx_emb_fail(err, KBX_ERR_NOMEM, "out of memory");
	for (i = 0; i < n; i++)
		if (!_kbx_emb_blank(texts[i], lens[i]))
			rows[nrows++] = i;

	for (done = 0; done < nrows && !st; done += h->batch) {
		size_t m = nrows - done < h->batch ? nrows - done : h->batch;
		json_t *body = json_object(), *input = json_array();
		char *dumped = NULL;

		if (!body || !input || json_object_set_new(body, "model", json_string(h->model)) ||
		    json_object_set(body, "input", input))
			goto nomem;
		for (i = 0; i < m; i++) {
			size_t r = rows[done + i];

			strbuf_reset(&text);
			_kbx_emb_add_utf8(&text, prefix, texts[r], lens[r]);
			if (text.failed ||
			    json_array_append_new(input, json_stringn(strbuf_str(&text), text.len)))
				goto nomem;
		}
		dumped = json_dumps(body, JSON_COMPACT);
		if (!dumped)
			goto nomem;
		st = post(h, dumped, strlen(dumped), err);
		if (!st)
			st = parse_answer(h, m, rows + done, dim, out, err);
		free(dumped);
		json_decref(input);
		json_decref(body);
		continue;
nomem:
		json_decref(input);
		json_decref(body);
		st = _kbx_emb_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	strbuf_release(&text);
	free(rows);
	return st;
}
