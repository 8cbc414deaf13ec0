#pragma once

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
