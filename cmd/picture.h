/*
 * Pictures of the graph: --format=dot (Graphviz) and --format=mermaid.
 *
 * A command that walks edges hands each one here (the output layer does
 * it for out_edge() and out_candidate(); path, cycles and impact call
 * picture_edge() themselves) and the picture is printed whole when the
 * output ends: nodes grouped by file, the nodes the question named drawn
 * bold, ambiguous edges dashed and unresolved ones dotted.  Names and
 * paths come from the repository: every label is escaped for the
 * language it is written in, so that no name can end a label or add a
 * statement.
 */
#ifndef KBX_PICTURE_H
#define KBX_PICTURE_H

#include "kbx.h"

struct picture;

/* format: FMT_DOT or FMT_MERMAID (output.h).  NULL when out of memory. */
struct picture *picture_new(int format);
void picture_free(struct picture *p);

/*
 * The repository of a node, when there are several (kbx --db
 * --all-repos): index tells the repositories apart (the same node id in
 * two is two nodes), name is drawn with the node (its file as
 * name/path).  NULL where a node is given one: the one repository.
 */
struct picture_repo {
	uint32_t index;
	const char *name;
};

/* A node of the picture, of repository r; start: one the question named
 * (drawn bold).  -1 when out of memory. */
int picture_node(struct picture *p, const struct picture_repo *r, const struct kbx_node *n,
		 int start);
/*
 * An edge from -> to, adding its nodes (of from_repo and to_repo).
 * confidence: KBX_CONF_* (ambiguous dashed, unresolved dotted).  label:
 * NULL, or a few words drawn on the edge.  The same pair twice is drawn
 * once, as its surest.  -1 when out of memory.
 */
int picture_edge(struct picture *p, const struct picture_repo *from_repo,
		 const struct kbx_node *from, const struct picture_repo *to_repo,
		 const struct kbx_node *to, int confidence, const char *label);

/* Print the picture on stdout; title names it (the command and its
 * question). */
void picture_print(const struct picture *p, const char *title);

#endif
