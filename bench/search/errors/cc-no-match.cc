#include <string>
void f(int);
int main()
{
	f(std::string("x"));
}
