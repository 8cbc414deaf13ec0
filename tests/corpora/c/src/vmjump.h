/* The jump table of src/vm.c, as Lua's ljumptab.h: it defines vmbreak
 * again, so that each case traces before it leaves. */
#undef vmbreak
#define vmbreak vm_trace(op); break
