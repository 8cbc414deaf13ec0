#include <syslog.h>

#include <string>

void log_line(const std::string &msg)
{
    syslog(LOG_INFO, "%s", msg.c_str());
}
