/*
 * The queries kbx serves to other programs, and running one: shared by
 * kbx mcp (cmd/mcp.c) and kbx serve (cmd/serve.c), so that both answer
 * the same questions the same way.
 *
 * A tool is one of kbx's commands with named arguments (JSON values)
 * in place of its command line.  A call runs the command with
 * --format=json in a forked child (no exec: the same image, already
 * loaded and linked) whose standard output and error are pipes; the
 * JSON Lines it prints become the call's records, its error message and
 * exit status an error.  The child keeps every crash, every global and
 * every open store to itself; cancelling a call is killing it; and as
 * every call opens the index afresh, a new generation written by
 * kbx index is seen by the next call.
 */
#ifndef KBX_TOOL_RUN_H
#define KBX_TOOL_RUN_H

#include <sys/types.h>

#include "builtin.h"
#include "util/json.h"
#include "util/strbuf.h"

enum tool_arg_kind {
	ARG_OPERAND,    /* a string after "--" */
	ARG_STRING,     /* --opt=VALUE */
	ARG_INT,        /* --opt=N */
	ARG_BOOL        /* --opt when true */
};

struct tool_arg {
	const char *name;
	enum tool_arg_kind kind;
	const char *opt;          /* the option, "--limit" (not for operands) */
	int required;
	const char *description;
	const char *const *values; /* for a string: the only values, or NULL */
};

struct tool {
	const char *name;         /* the tool, and the command it runs */
	const char *description;
	struct tool_arg args[10];
};

/* Every tool, in a fixed order; tools[ntools] does not exist. */
extern const struct tool kbx_tools[];
extern const size_t kbx_ntools;

/* The tool called name, or NULL. */
const struct tool *tool_find(const char *name);

/* Append "NAME":{JSON Schema of a's value} (MCP's inputSchema, the
 * OpenAPI description of kbx serve). */
void tool_arg_schema(struct strbuf *sb, const struct tool_arg *a);

/* What a call's output may grow to before the call is stopped. */
#define TOOL_MAX_OUTPUT (256u << 20)

/* How long a call stopped by tool_call_wait (its time or its output
 * over) has to end on SIGTERM before SIGKILL. */
#define TOOL_KILL_GRACE_MS 2000

struct tool_call {
	pid_t pid;
	const struct tool *tool;
	int fd[3];                      /* stdout, stderr, progress; -1 when closed */
	struct strbuf buf[3];
	int too_big;                    /* output over TOOL_MAX_OUTPUT: killed */
	int timed_out;                  /* over the time of tool_call_wait: killed */
};

/*
 * Start a call of t with the arguments args (an object, or NULL for
 * none): the member "repo" names a repository of 'kbx repos', the others
 * are t's arguments.  progress_fd >= 0 (kbx index only) gives the child
 * --progress-fd on a third pipe.  ctx supplies --kbx-dir, --repo and -c.
 * Returns 0 with c running, KBX_EXIT_USAGE for a bad argument or
 * another exit code when the system fails us, with the message in msg
 * as kbx would print it.
 */
int tool_call_start(struct tool_call *c, const struct tool *t, const struct kbx_json *args,
		    int progress_fd, const struct kbx_ctx *ctx, struct strbuf *msg);

/*
 * Read what pipe i of c has.  Returns 1 when every pipe is closed and
 * the child can be reaped, 0 otherwise (also on EINTR and EAGAIN).
 */
int tool_call_read(struct tool_call *c, int i);

/*
 * Read every pipe of c until the child closes them, then reap it; a
 * call still running after timeout_ms (0: no limit) is sent SIGTERM and
 * marked timed_out, and SIGKILL TOOL_KILL_GRACE_MS later if its pipes
 * are still open.  Returns the child's wait status.
 */
int tool_call_wait(struct tool_call *c, long timeout_ms);

/* Stop a running call (SIGTERM). */
void tool_call_cancel(struct tool_call *c);

/*
 * The answer of a call ended with status: 0 with the records of its
 * JSON Lines appended to records as a JSON array and the exit status
 * (0 found, 1 nothing found, 11 indexed with input skipped) in *rc; or
 * -1 with the message in msg and in *rc the exit status, or -1 when the
 * child was killed (by a signal, for its size or its time).
 */
int tool_call_records(struct tool_call *c, int status, struct strbuf *records, int *rc,
		      struct strbuf *msg);

/* What the call's command said besides its answer (warnings and notes
 * on its standard error), a JSON string a line, appended to items with
 * a comma between any two: the elements of a "warnings" array.  At most
 * 100 lines, then one that says how many more there were. */
void tool_call_warnings(const struct tool_call *c, struct strbuf *items);

/* The same lines as text, a line each. */
void tool_call_warning_text(const struct tool_call *c, struct strbuf *text);

/* ,"warnings":[items] when there are items; nothing when none. */
void add_warnings(struct strbuf *out, const struct strbuf *items);

/* Close c's pipes and free its buffers (the child must be reaped). */
void tool_call_release(struct tool_call *c);

/* The meaning of an exit status of kbx, as kbx(1) gives it. */
const char *tool_exit_meaning(int rc);

#endif
