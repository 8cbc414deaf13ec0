/*
 * The pager: a child process reading our standard output through a pipe
 * (see pager.h for when it runs and which program it is).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pager.h"

#define DEFAULT_PAGER "less -FRX"

static const char *pager_cmd;   /* NULL: not allowed */
static int pager_tried;
static pid_t pager_pid = -1;

void pager_allow(const char *core_pager)
{
	const char *p = getenv("KBX_PAGER");
	if (!p)
		p = core_pager;
	if (!p)
		p = getenv("PAGER");
	if (!p)
		p = DEFAULT_PAGER;
	/* the ways of saying "no pager" that git also understands */
	if (!*p || !strcmp(p, "cat"))
		p = NULL;
	pager_cmd = p;
}

int pager_in_use(void)
{
	return pager_pid > 0;
}

/* Close our ends of the pipe, so that the pager sees the end of its
 * input, and wait for it: the shell's prompt must not come back while
 * the pager still owns the terminal. */
static void wait_for_pager(void)
{
	if (pager_pid <= 0)
		return;
	close(1);
	close(2);
	while (waitpid(pager_pid, NULL, 0) < 0 && errno == EINTR)
		;
	pager_pid = -1;
}

static void wait_for_pager_at_exit(void)
{
	fflush(stdout);
	fflush(stderr);
	wait_for_pager();
}

/* Interrupted (Ctrl-C reaches the pager too, which ignores it): let the
 * pager finish, then die of the signal as we would have. */
static void wait_for_pager_signal(int sig)
{
	wait_for_pager();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The user quit the pager before reading everything: that is no error. */
static void pager_quit(int sig)
{
	(void)sig;
	wait_for_pager();
	_exit(0);
}

/* Run the pager command: directly when it is a plain program with
 * arguments, through sh when it uses the shell's syntax.  Never
 * returns. */
static void exec_pager(const char *cmd, int report_fd)
{
	if (!getenv("LESS"))
		setenv("LESS", "FRX", 1);
	if (!getenv("LV"))
		setenv("LV", "-c", 1);
	if (!strpbrk(cmd, "|&;<>()$`\\\"'*?[#~=%\n")) {
		char *copy = strdup(cmd);
		char *argv[64];
		int argc = 0;
		for (char *tok = copy ? strtok(copy, " \t") : NULL; tok && argc < 63;
		     tok = strtok(NULL, " \t"))
			argv[argc++] = tok;
		argv[argc] = NULL;
		if (argc)
			execvp(argv[0], argv);
	} else {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	}
	int e = errno;
	if (write(report_fd, &e, sizeof(e)) < 0)
		(void)0;
	_exit(127);
}

void pager_setup(void)
{
	int out[2], report[2];
	if (!pager_cmd || pager_tried)
		return;
	pager_tried = 1;
	if (!isatty(1))
		return;
	if (pipe(out) < 0)
		return;
	/* the child tells us through this pipe when it could not exec */
	if (pipe(report) < 0 || fcntl(report[1], F_SETFD, FD_CLOEXEC) < 0) {
		close(out[0]);
		close(out[1]);
		return;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		close(out[0]);
		close(out[1]);
		close(report[0]);
		close(report[1]);
		return;
	}
	if (pid == 0) {
		close(report[0]);
		dup2(out[0], 0);
		close(out[0]);
		close(out[1]);
		exec_pager(pager_cmd, report[1]);
	}
	close(out[0]);
	close(report[1]);
	int e = 0;
	ssize_t n;
	while ((n = read(report[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(report[0]);
	if (n > 0) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(out[1]);
		fprintf(stderr, "warning: cannot run the pager '%s': %s\n", pager_cmd, strerror(e));
		return;
	}
	pager_pid = pid;
	dup2(out[1], 1);
	if (isatty(2))
		dup2(out[1], 2);
	close(out[1]);
	atexit(wait_for_pager_at_exit);
	signal(SIGINT, wait_for_pager_signal);
	signal(SIGQUIT, wait_for_pager_signal);
	signal(SIGTERM, wait_for_pager_signal);
	signal(SIGHUP, wait_for_pager_signal);
	signal(SIGPIPE, pager_quit);
}
