#include <windows.h>

#include <string>

void log_line(const std::string &msg)
{
    OutputDebugStringA((msg + "\n").c_str());
}
