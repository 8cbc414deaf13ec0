#ifndef CALC_H
#define CALC_H

int twice(int x);
int add(int a, int b);
int give_up(void);

#define TWICE(x) twice(x)
#define ADD_TWICE(a, b) add(TWICE(a), TWICE(b))
#define APPLY(f, x) f(x)
#define CHECK(c) ((c) ? 0 : give_up())

#endif
