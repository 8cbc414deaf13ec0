/* An interpreter loop written with a case macro, as Lua's is: the
 * grammar reads vmcase(OP_ALLOC) { ... } as a function inside run_op,
 * which C does not have; its calls are run_op's.  vmbreak, a bare name
 * as a statement, is a macro defined here and again in vmjump.h. */
#include <stddef.h>

#include "util.h"

#define vmcase(op) case op:
#define vmbreak break

#if defined(__GNUC__)
#include "vmjump.h"
#endif

enum { OP_ALLOC, OP_HALT };

static void vm_trace(int op)
{
    (void)op;
}

void *run_op(int op)
{
    switch (op) {
        vmcase(OP_ALLOC) {
            return xmalloc(16);
        }
        vmcase(OP_HALT) {
            vmbreak;
        }
    }
    return NULL;
}
