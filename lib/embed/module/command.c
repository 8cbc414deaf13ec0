/*
 * The command embedding provider: a program of the user's that turns
 * texts into vectors (a local model behind a script, say).
 *
 * Protocol: for each _kbx_embed() call kbx runs the command once, with
 * /bin/sh -c, writes to its standard input one line per text, the text
 * as a JSON string (so newlines inside it are escaped, and invalid UTF-8
 * is replaced by U+FFFD), then closes it; the program writes to its
 * standard output one line per text, in the same order, each a JSON
 * array of numbers, and exits 0.  Texts of nothing but white space are
 * not written (they get zero vectors).  What the program writes to its
 * standard error is kept: its last line goes into kbx's message when the
 * program fails.  The program is killed when it neither reads nor writes
 * for the time-out (cfg->timeout_ms).  One process per call, not per
 * batch: a program that loads a model pays for that once per call, and
 * the caller decides how many texts a call has.
 *
 * The program's standard input is a socket, not a pipe, so that kbx can
 * write to it without risking SIGPIPE when the program exits early.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "internal.h"

#define STDERR_KEEP 8192

extern char **environ;

struct command {
	struct kbx_embed_provider base;
	char *command;
	char *query_prefix, *doc_prefix;
	uint32_t cfg_dim, timeout_ms;
};

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

kbx_status_t _kbx_command_open(const struct kbx_embed_config *cfg,
			       struct kbx_embed_provider **out, struct kbx_error *err)
{
	struct command *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return _kbx_emb_fail(err, KBX_ERR_NOMEM, "out of memory");
	c->command = strdup(cfg->command);
	c->query_prefix = dup_or_null(cfg->query_prefix);
	c->doc_prefix = dup_or_null(cfg->doc_prefix);
	c->cfg_dim = cfg->dim;
	c->timeout_ms = cfg->timeout_ms;
	if (!c->command) {
		_kbx_command_close(&c->base);
		return _kbx_emb_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	*out = &c->base;
	return KBX_OK;
}

void _kbx_command_close(struct kbx_embed_provider *p)
{
	struct command *c = (struct command *)p;

	if (!c)
		return;
	free(c->command);
	free(c->query_prefix);
	free(c->doc_prefix);
	free(c);
}

/* The last non-empty line of what the program wrote to stderr. */
static void last_line(const struct strbuf *sb, char *buf, size_t size)
{
	const char *s = strbuf_str(sb);
	size_t end = sb->len, start;

	while (end && (s[end - 1] == '\n' || s[end - 1] == '\r' || s[end - 1] == ' '))
		end--;
	start = end;
	while (start && s[start - 1] != '\n')
		start--;
	if (end - start >= size)
		start = end - (size - 1);
	memcpy(buf, s + start, end - start);
	buf[end - start] = '\0';
}

static long elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000L + (now.tv_nsec - since->tv_nsec) / 1000000L;
}

/*
 * Run the command with input on its stdin; its stdout into out, the end
 * of its stderr into errs, its wait status into *wstatus.  Returns
 * KBX_OK, or a failure to start it or a time-out.
 */
static kbx_status_t run(struct command *c, const struct strbuf *input, struct strbuf *out,
			struct strbuf *errs, int *wstatus, struct kbx_error *err)
{
	int sv[2] = { -1, -1 }, po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	posix_spawn_file_actions_t fa;
	char *argv[4];
	size_t written = 0;
	struct timespec last;
	kbx_status_t st = KBX_OK;
	pid_t pid;
	int rc;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) ||
	    pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
		st = _kbx_emb_fail(err, KBX_ERR_IO, "command embedding: cannot run '%s': %s",
				   c->command, strerror(errno));
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	argv[0] = (char *)"sh";
	argv[1] = (char *)"-c";
	argv[2] = c->command;
	argv[3] = NULL;
	rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		st = _kbx_emb_fail(err, KBX_ERR_IO, "command embedding: cannot run '%s': %s",
				   c->command, strerror(rc));
		goto out;
	}
	close(sv[1]);
	close(po[1]);
	close(pe[1]);
	sv[1] = po[1] = pe[1] = -1;
	fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	if (!input->len) {
		close(sv[0]);
		sv[0] = -1;
	}

	clock_gettime(CLOCK_MONOTONIC, &last);
	while (po[0] >= 0 || pe[0] >= 0) {
		struct pollfd fds[3];
		int nfds = 0, i, wait_ms;
		long idle = elapsed_ms(&last);

		if (idle >= (long)c->timeout_ms) {
			kill(pid, SIGKILL);
			waitpid(pid, wstatus, 0);
			st = _kbx_emb_fail(err, KBX_ERR_IO,
					   "command embedding: '%s' neither read nor wrote for %u ms and was killed; make it faster or raise the time-out",
					   c->command, c->timeout_ms);
			goto out;
		}
		wait_ms = (int)((long)c->timeout_ms - idle);
		if (sv[0] >= 0)
			fds[nfds++] = (struct pollfd){ sv[0], POLLOUT, 0 };
		if (po[0] >= 0)
			fds[nfds++] = (struct pollfd){ po[0], POLLIN, 0 };
		if (pe[0] >= 0)
			fds[nfds++] = (struct pollfd){ pe[0], POLLIN, 0 };
		rc = poll(fds, (nfds_t)nfds, wait_ms);
		if (rc < 0 && errno != EINTR) {
			kill(pid, SIGKILL);
			waitpid(pid, wstatus, 0);
			st = _kbx_emb_fail(err, KBX_ERR_IO, "command embedding: '%s': poll: %s",
					   c->command, strerror(errno));
			goto out;
		}
		if (rc <= 0)
			continue;
		for (i = 0; i < nfds; i++) {
			int fd = fds[i].fd;

			if (!fds[i].revents)
				continue;
			clock_gettime(CLOCK_MONOTONIC, &last);
			if (fd == sv[0]) {
				ssize_t n = send(fd, input->buf + written, input->len - written,
						 MSG_NOSIGNAL | MSG_DONTWAIT);

				if (n > 0)
					written += (size_t)n;
				/* EPIPE: it stopped reading; its exit
				 * status and output will say why */
				if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
				    written == input->len) {
					close(sv[0]);
					sv[0] = -1;
				}
			} else {
				char buf[65536];
				ssize_t n = read(fd, buf, sizeof(buf));
				struct strbuf *to = fd == po[0] ? out : errs;

				if (n < 0 && (errno == EINTR || errno == EAGAIN))
					continue;
				if (n <= 0) {
					close(fd);
					if (fd == po[0])
						po[0] = -1;
					else
						pe[0] = -1;
					continue;
				}
				strbuf_add(to, buf, (size_t)n);
				if (to == errs && errs->len > 2 * STDERR_KEEP) {
					memmove(errs->buf, errs->buf + errs->len - STDERR_KEEP,
						STDERR_KEEP);
					strbuf_setlen(errs, STDERR_KEEP);
				}
			}
		}
	}
	while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
		;
	if (out->failed || errs->failed)
		st = _kbx_emb_fail(err, KBX_ERR_NOMEM, "out of memory");
out:
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	if (po[0] >= 0)
		close(po[0]);
	if (po[1] >= 0)
		close(po[1]);
	if (pe[0] >= 0)
		close(pe[0]);
	if (pe[1] >= 0)
		close(pe[1]);
	return st;
}

kbx_status_t _kbx_command_embed(struct kbx_embed_provider *p, size_t n,
				const char *const *texts, const size_t *lens, int is_query,
				uint32_t *dim, float *out, struct kbx_error *err)
{
	struct command *c = (struct command *)p;
	const char *prefix = is_query ? c->query_prefix : c->doc_prefix;
	struct strbuf input = STRBUF_INIT, output = STRBUF_INIT, errs = STRBUF_INIT;
	struct strbuf text = STRBUF_INIT;
	size_t *rows = NULL, nrows = 0, i, line;
	kbx_status_t st = KBX_OK;
	int wstatus = 0;
	char *s, *end;

	if (out)
		memset(out, 0, n * (size_t)*dim * sizeof(*out));
	rows = malloc((n ? n : 1) * sizeof(*rows));
	if (!rows)
		return _kbx_emb_fail(err, KBX_ERR_NOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		json_t *js;
		char *line_text;

		if (_kbx_emb_blank(texts[i], lens[i]))
			continue;
		rows[nrows++] = i;
		strbuf_reset(&text);
		_kbx_emb_add_utf8(&text, prefix, texts[i], lens[i]);
		js = text.failed ? NULL : json_stringn(strbuf_str(&text), text.len);
		line_text = js ? json_dumps(js, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
		json_decref(js);
		if (!line_text) {
			st = _kbx_emb_fail(err, KBX_ERR_NOMEM, "out of memory");
			goto out;
		}
		strbuf_addstr(&input, line_text);
		strbuf_addch(&input, '\n');
		free(line_text);
	}
	if (!nrows)
		goto out;
	if (input.failed) {
		st = _kbx_emb_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto out;
	}

	st = run(c, &input, &output, &errs, &wstatus, err);
	if (st)
		goto out;
	if (WIFSIGNALED(wstatus) || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus)) {
		char tail[512];

		last_line(&errs, tail, sizeof(tail));
		if (WIFSIGNALED(wstatus))
			st = _kbx_emb_fail(err, KBX_ERR_IO,
					   "command embedding: '%s' was killed by signal %d%s%s",
					   c->command, WTERMSIG(wstatus), *tail ? ": " : "", tail);
		else
			st = _kbx_emb_fail(err, KBX_ERR_IO,
					   "command embedding: '%s' exited with status %d%s%s",
					   c->command, WEXITSTATUS(wstatus), *tail ? ": " : "", tail);
		goto out;
	}

	/* one JSON array per line, as many lines as texts */
	s = output.buf ? output.buf : (char *)"";
	end = s + output.len;
	for (line = 0; s < end; line++) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		json_error_t jerr;
		json_t *arr;
		size_t k, m;
		float *row;
		char what[64];

		if (line >= nrows) {
			line = nrows + 1;
			break;
		}
		arr = json_loadb(s, len, 0, &jerr);
		if (!arr || !json_is_array(arr)) {
			st = _kbx_emb_fail(err, KBX_ERR_PARSE,
					   "command embedding: '%s': line %zu of its output is not a JSON array of numbers%s%s",
					   c->command, line + 1, arr ? "" : ": ", arr ? "" : jerr.text);
			json_decref(arr);
			goto out;
		}
		m = json_array_size(arr);
		snprintf(what, sizeof(what), "line %zu of its output", line + 1);
		{
			struct strbuf w = STRBUF_INIT;

			strbuf_addf(&w, "'%s': %s", c->command, what);
			st = _kbx_emb_check_dim("command", strbuf_str(&w), m, dim, c->cfg_dim, err);
			strbuf_release(&w);
		}
		if (st) {
			json_decref(arr);
			goto out;
		}
		row = out ? out + rows[line] * (size_t)*dim : NULL;
		for (k = 0; k < m; k++) {
			json_t *x = json_array_get(arr, k);

			if (!json_is_number(x)) {
				json_decref(arr);
				st = _kbx_emb_fail(err, KBX_ERR_PARSE,
						   "command embedding: '%s': line %zu of its output is not a JSON array of numbers: item %zu is not a number",
						   c->command, line + 1, k + 1);
				goto out;
			}
			double v = json_number_value(x);
			if (!_kbx_emb_float_ok(v)) {
				json_decref(arr);
				st = _kbx_emb_fail(err, KBX_ERR_PARSE,
						   "command embedding: '%s': line %zu of its output: item %zu (%g) is out of a vector's range",
						   c->command, line + 1, k + 1, v);
				goto out;
			}
			if (row)
				row[k] = (float)v;
		}
		json_decref(arr);
		if (row)
			_kbx_emb_normalize(row, *dim);
		s = nl ? nl + 1 : end;
	}
	if (line != nrows)
		st = _kbx_emb_fail(err, KBX_ERR_PARSE,
				   "command embedding: '%s' wrote %s%zu lines for %zu texts; it must write one JSON array per line, one line per text",
				   c->command, line > nrows ? "more than " : "",
				   line > nrows ? nrows : line, nrows);
out:
	strbuf_release(&input);
	strbuf_release(&output);
	strbuf_release(&errs);
	strbuf_release(&text);
	free(rows);
	return st;
}
