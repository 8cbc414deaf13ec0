/*
 * Long text output through a pager, as git does: only when standard
 * output is a terminal, never for the machine formats, and only for
 * commands the dispatcher allows it for.
 *
 * The pager is the first of $KBX_PAGER, the core.pager setting, $PAGER
 * and "less -FRX"; an empty one or "cat" means none.  LESS=FRX is put in
 * its environment when LESS is unset, so that less quits at once when
 * everything fits on the screen, passes colours through and leaves the
 * screen as it was.
 */
#ifndef KBX_PAGER_H
#define KBX_PAGER_H

/* Allow a pager for this process (the dispatcher calls it unless
 * --no-pager, pager.enabled=false or the command is flagged
 * RUN_NO_PAGER).  core_pager is the core.pager setting, or NULL when no
 * file sets it. */
void pager_allow(const char *core_pager);

/* Start the pager, once, when it is allowed and standard output is a
 * terminal: standard output (and standard error, when it is a terminal
 * too) then go into a pipe to it.  kbx waits for the pager to end before
 * it exits; when the user quits it before reading everything, kbx ends
 * quietly with status 0.  A pager that cannot be started is warned about
 * and the output goes to the terminal. */
void pager_setup(void);

/* Is a pager reading our standard output? */
int pager_in_use(void);

#endif
