int main(void)
{
	int a = 1
	return a;
}
