#pragma once

#include <string>

inline double scale(double v, double factor)
{
    return v * factor;
}

inline int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

// Defined once per platform, under src/platform/.
void log_line(const std::string &msg);

namespace render {
void check_failed(const char *what);
}

// A check written as a macro: the call of render::check_failed is the
// macro's, so that its callers are found through it.
#define RENDER_CHECK(cond) ((cond) ? (void)0 : ::render::check_failed(#cond))
