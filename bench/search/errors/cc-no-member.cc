#include <vector>
int main()
{
	std::vector<int> v;
	v.push(1);
}
