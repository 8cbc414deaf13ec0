/* An interpreter loop written with a case macro, as Lua's is: the
 * grammar reads vmcase(OP_ALLOC) { ... } as a function inside run_op,
 * which C does not have; its calls are run_op's. */
#include <stddef.h>

#include "util.h"

#define vmcase(op) case op:

enum { OP_ALLOC, OP_HALT };

void *run_op(int op)
{
    switch (op) {
        vmcase(OP_ALLOC) {
            return xmalloc(16);
        }
        vmcase(OP_HALT) {
            break;
        }
    }
    return NULL;
}
